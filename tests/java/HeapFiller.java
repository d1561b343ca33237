// A test app that builds an object-heavy heap of about --live-mb MB: linked
// nodes, HashMaps of Strings, object arrays, and some primitive arrays, like
// a real service's heap. Prints "ready pid=N live_mb=M" when built, then
// sleeps until killed or --seconds pass (default 600).
//   java -Xmx2g tests/java/HeapFiller.java --live-mb 500
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

public class HeapFiller {
    static final class Node {
        Node next;
        Object payload;
        long stamp;
        int index;
        Node(Node next, Object payload, int index) {
            this.next = next;
            this.payload = payload;
            this.index = index;
            this.stamp = index * 31L;
        }
    }

    static final List<Object> ROOTS = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        long liveMb = 100, seconds = 600;
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (args[i].equals("--live-mb")) liveMb = Long.parseLong(args[i + 1]);
            else if (args[i].equals("--seconds")) seconds = Long.parseLong(args[i + 1]);
            else throw new IllegalArgumentException("unknown option " + args[i]);
        }
        long target = liveMb << 20, built = 0;
        int batch = 0;
        while (built < target) {
            // ~1 MB a batch: 8k nodes (~40 B each + payloads), a map of 1k strings, arrays
            Node head = null;
            for (int i = 0; i < 8192; i++)
                head = new Node(head, (i % 4 == 0) ? Integer.valueOf(i) : null, i);
            HashMap<String, Object> map = new HashMap<>();
            for (int i = 0; i < 1024; i++)
                map.put("key-" + batch + "-" + i, new Object[] {head, "v" + i});
            byte[] bytes = new byte[64 * 1024];
            int[] ints = new int[16 * 1024];
            for (int i = 0; i < ints.length; i++) ints[i] = i * batch;
            bytes[batch % bytes.length] = (byte) batch;
            ROOTS.add(new Object[] {head, map, bytes, ints});
            built += 8192 * 40 + 1024 * 120 + bytes.length + ints.length * 4;
            batch++;
        }
        System.out.println("ready pid=" + ProcessHandle.current().pid() + " live_mb=" + liveMb);
        System.out.flush();
        Thread.sleep(seconds * 1000);
    }
}
