// A JVM test app for leak suspects with no rule: a small service whose
// closed sessions pile up in a static listener list (EventBus.LISTENERS),
// the "forgot to unregister" leak; nothing marks them as leaks, so only the
// heap's shape can name them. Also a thread ("frame-holder") whose stack
// frame holds a large local list, for the threads view. Prints
// "ready pid=N" once built, then waits to be killed (at most 600 s).
//   java tests/java/SessionPile.java [--sessions N] [--session-kb K] [--local-kb K] [--grow-per-s N]
// --grow-per-s adds N sessions a second to a static cache (SessionPile$Cache.ENTRIES)
// after "ready", for dumps taken some seconds apart. A line "grow N" on standard
// input adds N sessions to that cache at once and answers "grew N" when done
// (tests/hprof/java_dumps.sh's grow:N): dumps that differ by a known amount,
// however slow the machine.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class SessionPile {
    static final class Session {
        final int id;
        boolean closed;
        final byte[] buffer;
        Session(int id, int bytes) { this.id = id; this.buffer = new byte[bytes]; }
        void onEvent(String e) { }
    }

    static final class EventBus {
        static final List<Session> LISTENERS = new ArrayList<>();
        static void register(Session s) { LISTENERS.add(s); }
    }

    static final class Cache {
        static final Map<Integer, Session> ENTRIES = new HashMap<>();
    }

    static volatile boolean stop;

    // The local `held` lives in this frame for as long as the thread runs.
    static void holdLocals(int kb) throws InterruptedException {
        List<byte[]> held = new ArrayList<>();
        for (int i = 0; i < kb / 64; i++)
            held.add(new byte[64 * 1024]);
        while (!stop)
            Thread.sleep(100);
        System.out.println(held.size());
    }

    public static void main(String[] args) throws Exception {
        int sessions = 200, sessionKb = 256, localKb = 4096, growPerS = 0;
        for (int i = 0; i + 1 < args.length; i += 2) {
            int v = Integer.parseInt(args[i + 1]);
            switch (args[i]) {
                case "--sessions": sessions = v; break;
                case "--session-kb": sessionKb = v; break;
                case "--local-kb": localKb = v; break;
                case "--grow-per-s": growPerS = v; break;
                default: throw new IllegalArgumentException(args[i]);
            }
        }
        for (int i = 0; i < sessions; i++) {
            Session s = new Session(i, sessionKb * 1024);
            EventBus.register(s);
            s.closed = true; // closed, but never unregistered
        }
        final int kb = localKb;
        Thread holder = new Thread(() -> {
            try { holdLocals(kb); } catch (InterruptedException e) { }
        }, "frame-holder");
        holder.setDaemon(true);
        holder.start();
        Thread.sleep(300); // the holder has filled its list
        Thread commands = new Thread(() -> {
            try {
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
                int id = 1_000_000;
                for (String line; (line = in.readLine()) != null; ) {
                    if (!line.startsWith("grow ")) continue;
                    int n = Integer.parseInt(line.substring(5).trim());
                    synchronized (Cache.ENTRIES) {
                        for (int k = 0; k < n; k++, id++)
                            Cache.ENTRIES.put(id, new Session(id, 16 * 1024));
                    }
                    System.out.println("grew " + n);
                    System.out.flush();
                }
            } catch (Exception e) { }
        }, "commands");
        commands.setDaemon(true);
        commands.start();
        System.out.println("ready pid=" + ProcessHandle.current().pid());
        System.out.flush();
        long end = System.currentTimeMillis() + 600_000;
        int next = 0;
        while (System.currentTimeMillis() < end) {
            Thread.sleep(100);
            synchronized (Cache.ENTRIES) {
                for (int k = 0; k < growPerS / 10; k++, next++)
                    Cache.ENTRIES.put(next, new Session(next, 16 * 1024));
            }
        }
        stop = true;
    }
}
