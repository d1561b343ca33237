// A JVM test app for fork-dumps under load: builds about --live-mb MB of
// live objects (linked nodes, maps of strings, arrays), then --threads
// threads allocate (as fast as they can, or --alloc-mb-per-s MB a second in
// all) and keep replacing parts of the live set, and one thread measures the
// app's pauses: the largest gap between consecutive 1 ms sleeps. Commands on
// stdin, one per line:
//   reset   -> forget the largest gap so far
//   report  -> print "maxgap_ms X"
//   rate N  -> allocate N MB a second in all (0: idle; -1: as fast as possible)
// Prints "ready pid=N live_mb=M" once built and "alive K" every 200 ms.
// Ends after --seconds (default 600) or when stdin closes with --exit-on-eof.
//   java -Xmx3g tests/java/BusyHeap.java --live-mb 1200 --threads 2
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

public class BusyHeap {
    static final class Node {
        Node next;
        Object payload;
        long stamp;
        int index;
        Node(Node next, Object payload, int index) { this.next = next; this.payload = payload; this.index = index; }
    }

    static final List<Object> LIVE = new ArrayList<>();
    static volatile long maxGapNs;
    static volatile double rateMb = -1; // MB/s over all allocating threads; -1 = unlimited
    static final AtomicLong churned = new AtomicLong();

    static Object batch(int b) {
        Node head = null;
        for (int i = 0; i < 8192; i++)
            head = new Node(head, (i % 4 == 0) ? Integer.valueOf(i) : null, i);
        HashMap<String, Object> map = new HashMap<>();
        for (int i = 0; i < 1024; i++)
            map.put("key-" + b + "-" + i, new int[4]);
        Object[] arr = new Object[2048];
        for (int i = 0; i < arr.length; i += 3)
            arr[i] = new long[8];
        return new Object[] {head, map, arr, new byte[16 * 1024]};
    }

    public static void main(String[] args) throws Exception {
        long liveMb = 200, seconds = 600;
        int threads = 2;
        boolean exitOnEof = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--live-mb": liveMb = Long.parseLong(args[++i]); break;
                case "--threads": threads = Integer.parseInt(args[++i]); break;
                case "--seconds": seconds = Long.parseLong(args[++i]); break;
                case "--exit-on-eof": exitOnEof = true; break;
                case "--alloc-mb-per-s": rateMb = Double.parseDouble(args[++i]); break;
                default: throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        Runtime rt = Runtime.getRuntime();
        int b = 0;
        while (true) {
            LIVE.add(batch(b++));
            if (b % 64 == 0) {
                System.gc();
                if ((rt.totalMemory() - rt.freeMemory()) >> 20 >= liveMb) break;
            }
        }
        final int batches = LIVE.size();
        Thread probe = new Thread(() -> {
            long last = System.nanoTime();
            while (true) {
                try { Thread.sleep(1); } catch (InterruptedException e) { return; }
                long now = System.nanoTime();
                if (now - last > maxGapNs) maxGapNs = now - last;
                last = now;
            }
        }, "pause-probe");
        probe.setDaemon(true);
        probe.setPriority(Thread.MAX_PRIORITY);
        probe.start();
        final int nthreads = threads;
        for (int t = 0; t < threads; t++) {
            final int seed = t;
            Thread w = new Thread(() -> {
                int k = seed;
                long windowStart = System.nanoTime(), windowBytes = 0;
                double windowRate = rateMb;
                while (true) {
                    if (k % 1000 == 0) { // about 600 KB of allocation per 1000 rounds
                        double r = rateMb;
                        if (r != windowRate) { windowRate = r; windowStart = System.nanoTime(); windowBytes = 0; }
                        if (r == 0) {
                            try { Thread.sleep(10); } catch (InterruptedException e) { return; }
                            continue;
                        }
                        if (r > 0) {
                            windowBytes += 600_000;
                            double allowed = r / nthreads * 1048576.0 * (System.nanoTime() - windowStart) / 1e9;
                            while (windowBytes > allowed) {
                                try { Thread.sleep(1); } catch (InterruptedException e) { return; }
                                allowed = r / nthreads * 1048576.0 * (System.nanoTime() - windowStart) / 1e9;
                            }
                        }
                    }
                    // garbage, and now and then a replaced part of the live set
                    Object o = new Object[] {new byte[512], new Node(null, null, k), "s" + k};
                    churned.incrementAndGet();
                    if (++k % 50000 == 0) {
                        synchronized (LIVE) { LIVE.set(k / 50000 % batches, batch(k)); }
                    }
                    if (o.hashCode() == 42) System.out.print("");
                }
            }, "allocator-" + t);
            w.setDaemon(true);
            w.start();
        }
        Thread alive = new Thread(() -> {
            long n = 0;
            while (true) {
                System.out.println("alive " + (n++) + " churned=" + churned.get());
                System.out.flush();
                try { Thread.sleep(200); } catch (InterruptedException e) { return; }
            }
        }, "heartbeat");
        alive.setDaemon(true);
        System.out.println("ready pid=" + ProcessHandle.current().pid() + " live_mb=" + ((rt.totalMemory() - rt.freeMemory()) >> 20));
        System.out.flush();
        alive.start();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        Thread stdin = new Thread(() -> {
            try {
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.equals("reset")) maxGapNs = 0;
                    else if (line.equals("report")) { System.out.println("maxgap_ms " + maxGapNs / 1e6); System.out.flush(); }
                    else if (line.startsWith("rate ")) rateMb = Double.parseDouble(line.substring(5));
                }
            } catch (Exception e) { }
        }, "stdin");
        stdin.setDaemon(true);
        stdin.start();
        while (System.nanoTime() < end && (stdin.isAlive() || !exitOnEof))
            Thread.sleep(100);
    }
}
