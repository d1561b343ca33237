// An app with many small live objects (--millions M, default 10.5: chained
// nodes, each with a boxed value), a cache that turns over all the time
// (a thread replacing entries of a bounded map), and a worker thread
// parked in a known method (ManySmall$Worker.parkHere, named
// "parked-worker"), its local holding a known list. Prints "ready pid=N
// objects=M" once everything is built, then runs until killed or --seconds
// pass (default 600).
//   java -Xmx1g tests/java/ManySmall.java --millions 10.5
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

public class ManySmall {
    static final class Node {
        final Node next;
        final Integer value;
        Node(Node next, Integer value) { this.next = next; this.value = value; }
    }

    static final ArrayList<Node> CHAINS = new ArrayList<>();
    static volatile boolean built;

    static final class Worker extends Thread {
        Worker() { super("parked-worker"); setDaemon(true); }
        public void run() {
            ArrayList<String> held = new ArrayList<>();
            for (int i = 0; i < 1000; i++) held.add("held-" + i);
            parkHere(held);
        }
        static void parkHere(ArrayList<String> held) {
            while (true) LockSupport.park(held);
        }
    }

    public static void main(String[] args) throws Exception {
        double millions = 10.5;
        long seconds = 600;
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (args[i].equals("--millions")) millions = Double.parseDouble(args[i + 1]);
            else if (args[i].equals("--seconds")) seconds = Long.parseLong(args[i + 1]);
            else throw new IllegalArgumentException("unknown option " + args[i]);
        }
        new Worker().start();
        // each node is 2 objects (the node, and a new Integer beyond the cache)
        long nodes = (long) (millions * 1_000_000) / 2, made = 0;
        while (made < nodes) {
            Node head = null;
            for (int i = 0; i < 100_000 && made < nodes; i++, made++)
                head = new Node(head, new Integer(1000 + (int) (made & 0xffff)));
            CHAINS.add(head);
        }
        Thread churn = new Thread(() -> {
            Map<Integer, byte[]> cache = new LinkedHashMap<Integer, byte[]>(1024, 0.75f, true) {
                protected boolean removeEldestEntry(Map.Entry<Integer, byte[]> e) { return size() > 4096; }
            };
            try {
                for (int k = 0; ; k++) { // about 10 MB/s: a cache turning over, not a CPU burner
                    cache.put(k, new byte[256]);
                    if (k % 40 == 0) Thread.sleep(1);
                }
            } catch (InterruptedException e) { }
        }, "cache-churn");
        churn.setDaemon(true);
        churn.start();
        System.out.println("ready pid=" + ProcessHandle.current().pid() + " objects=" + nodes * 2);
        System.out.flush();
        Thread.sleep(seconds * 1000);
    }
}
