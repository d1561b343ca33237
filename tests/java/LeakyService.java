// A service that leaks: every closed Session stays in a static cache
// (SessionCache.CLOSED), about --leak-mb-per-s MB a second, until --max-mb MB
// have leaked; meanwhile a worker thread churns short-lived garbage, as real
// services do. Open sessions are kept too (they must not be reported).
// Prints "ready pid=N", then "leaked_mb=M" each second; runs --seconds
// (default 600) or until killed. With --go FILE the leak starts once FILE
// exists (a watcher has attached and armed what it needs).
//   java -Xmx256m tests/java/LeakyService.java --leak-mb-per-s 20 --max-mb 200
import java.util.ArrayList;
import java.util.List;

public class LeakyService {
    static final class Session {
        boolean closed;
        final long id;
        final byte[] buffer;
        Session(long id, int bytes) { this.id = id; this.buffer = new byte[bytes]; }
        void close() { closed = true; }
    }

    static final class SessionCache {
        static final List<Session> CLOSED = new ArrayList<>();
    }

    static final List<Session> OPEN = new ArrayList<>();
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        double rate = 20;
        long maxMb = Long.MAX_VALUE, seconds = 600;
        java.io.File go = null;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--leak-mb-per-s": rate = Double.parseDouble(args[i + 1]); break;
                case "--max-mb": maxMb = Long.parseLong(args[i + 1]); break;
                case "--seconds": seconds = Long.parseLong(args[i + 1]); break;
                case "--go": go = new java.io.File(args[i + 1]); break;
                default: throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        for (int i = 0; i < 16; i++)
            OPEN.add(new Session(-i, 4096));
        Thread churn = new Thread(() -> {
            while (true) {
                byte[] garbage = new byte[64 * 1024];
                sink += garbage.length;
                try { Thread.sleep(1); } catch (InterruptedException e) { return; }
            }
        }, "churn");
        churn.setDaemon(true);
        churn.start();
        System.out.println("ready pid=" + ProcessHandle.current().pid());
        System.out.flush();
        while (go != null && !go.exists())
            Thread.sleep(20);
        long start = System.nanoTime(), leaked = 0, id = 0, lastReport = 0;
        final int sessionBytes = 64 * 1024;
        while ((System.nanoTime() - start) / 1_000_000_000L < seconds) {
            long elapsedMs = (System.nanoTime() - start) / 1_000_000L;
            long want = Math.min((long) (rate * elapsedMs / 1000.0 * 1024 * 1024), maxMb << 20);
            while (leaked + sessionBytes <= want) {
                Session s = new Session(++id, sessionBytes);
                s.close();
                SessionCache.CLOSED.add(s);
                leaked += sessionBytes;
            }
            if (elapsedMs - lastReport >= 1000) {
                lastReport = elapsedMs;
                System.out.println("leaked_mb=" + (leaked >> 20));
                System.out.flush();
            }
            Thread.sleep(50);
        }
    }
}
