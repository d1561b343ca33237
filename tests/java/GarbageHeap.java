// A heap whose garbage points into the live set, for the analyzer's
// reachable-only dominators: a static list of sessions that grew one add
// at a time (ArrayList.grow leaves each old elementData behind, every one
// holding the sessions it held then), a map that grew (HashMap.resize leaves
// its old tables behind, holding the same entries), and closed sessions no
// longer held at all. Built right after a full GC, in a young generation
// large enough that no collection runs until the process ends, so a dump
// that keeps garbage (`jcmd PID GC.heap_dump -all`, a fork-dump) has it.
// Prints "ready pid=N sessions=S bytes=B collections=C" once built (C: the
// collections since the build, 0 unless the young generation was too small),
// then waits to be killed (at most --seconds, default 600).
//   java -XX:+UseSerialGC -Xmx600m -Xmn500m tests/java/GarbageHeap.java --sessions 2000 --session-kb 16
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class GarbageHeap {
    static final class Session {
        final int id;
        final byte[] buffer;
        Session(int id, int bytes) { this.id = id; this.buffer = new byte[bytes]; }
    }

    static final class SessionCache {
        static final List<Session> CLOSED = new ArrayList<>();
        static final Map<Integer, String> NAMES = new HashMap<>();
    }

    static long collections() {
        long n = 0;
        for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans())
            n += Math.max(0, b.getCollectionCount());
        return n;
    }

    public static void main(String[] args) throws Exception {
        int sessions = 2000, sessionKb = 16;
        long seconds = 600;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--sessions": sessions = Integer.parseInt(args[i + 1]); break;
                case "--session-kb": sessionKb = Integer.parseInt(args[i + 1]); break;
                case "--seconds": seconds = Long.parseLong(args[i + 1]); break;
                default: throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        System.gc();
        long before = collections();
        for (int i = 0; i < sessions; i++) {
            SessionCache.CLOSED.add(new Session(i, sessionKb * 1024));
            SessionCache.NAMES.put(i, "session-" + i);
        }
        for (int i = 0; i < sessions / 4; i++) // closed and dropped: plain garbage
            new Session(-i, sessionKb * 1024);
        System.out.println("ready pid=" + ProcessHandle.current().pid() + " sessions=" + sessions +
                           " bytes=" + (long) sessions * sessionKb * 1024 + " collections=" + (collections() - before));
        System.out.flush();
        Thread.sleep(seconds * 1000);
    }
}
