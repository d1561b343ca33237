// A test app that builds a live heap of about --mb MB in one shape, for the
// analyzer's scale benchmark (scripts/bench-analyze.sh). Prints "ready pid=N
// objects=M" once built (M: the objects it made, about), then sleeps until
// killed or --seconds pass (default 600).
//   java -Xmx4g tests/java/HeapShapes.java --shape chains [--mb N] [--seconds S]
// Shapes (the default --mb gives a jcmd GC.heap_dump of about 1 GB: a dump
// record takes more bytes than the object does in a heap with compressed
// oops; measured on JDK 17: dump MiB, objects in it):
//   chains   12 singly linked lists of small nodes (a next reference and a
//            long), held from a static array: every node dominates the rest
//            of its chain (560 MB: 24 M nodes; 964 MiB, 24.5 M)
//   wide     4 Object[] of millions of small objects each, every one holding
//            a small byte[] or a Long of its own (600 MB; 917 MiB, 26.3 M)
//   deep     a tree of 2 to 4 children a node (2.19 on average), built breadth
//            first: 22 levels, with 4 degenerate branches of 100 k+ nodes
//            (5 % of the nodes) hung from leaves (520 MB; 999 MiB, 17.1 M)
//   classes  40,000 classes (--classes N) made at run time from class files
//            written here, in a loader of their own: each with 2 to 5 static
//            Object fields and a static long, 3 instances held from a static
//            array; the statics hold the bytes (a byte[] and an Object[] of
//            Longs, sized from --mb), an instance, the class before (620 MB;
//            1,080 MiB, 22.1 M, 42.8 k classes)
//   huge     5 huge arrays: a long[], a byte[] and an int[] of hundreds of MB,
//            an Object[] of tens of millions of references to 5 shared objects
//            and one a quarter its size, mostly nulls (760 MB; 1,034 MiB,
//            72 k objects, 56 M references)
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;

public class HeapShapes {
    static final long MB = 1L << 20;

    // chains
    static final class Link {
        final Link next;
        final long value;
        Link(Link next, long value) { this.next = next; this.value = value; }
    }
    static Link[] CHAINS;

    // wide
    static final class Item {
        final Object payload;
        final int id;
        Item(Object payload, int id) { this.payload = payload; this.id = id; }
    }
    static Object[][] WIDE;

    // deep
    static final class TreeNode {
        TreeNode c0, c1, c2, c3;
        final int id;
        TreeNode(int id) { this.id = id; }
        void add(TreeNode c) {
            if (c0 == null) c0 = c;
            else if (c1 == null) c1 = c;
            else if (c2 == null) c2 = c;
            else c3 = c;
        }
    }
    static TreeNode ROOT;

    // classes
    static final class Loader extends ClassLoader {
        Loader() { super(HeapShapes.class.getClassLoader()); }
        Class<?> define(String name, byte[] b) { return defineClass(name, b, 0, b.length); }
    }
    static Loader LOADER;
    static Object[] INSTANCES;

    // huge
    static long[] HUGE_LONGS;
    static byte[] HUGE_BYTES;
    static int[] HUGE_INTS;
    static Object[] HUGE_REFS;
    static Object[] HUGE_SPARSE;

    public static void main(String[] args) throws Throwable {
        String shape = null;
        long mb = -1, seconds = 600;
        int classes = 40_000;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--shape": shape = args[i + 1]; break;
                case "--mb": mb = Long.parseLong(args[i + 1]); break;
                case "--seconds": seconds = Long.parseLong(args[i + 1]); break;
                case "--classes": classes = Integer.parseInt(args[i + 1]); break;
                default: throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (args.length % 2 != 0) throw new IllegalArgumentException("option " + args[args.length - 1] + " without a value");
        if (shape == null) throw new IllegalArgumentException("--shape chains|wide|deep|classes|huge");
        long objects;
        switch (shape) {
            case "chains": objects = chains(mb < 0 ? 560 : mb); break;
            case "wide": objects = wide(mb < 0 ? 600 : mb); break;
            case "deep": objects = deep(mb < 0 ? 520 : mb); break;
            case "classes": objects = classes(mb < 0 ? 620 : mb, classes); break;
            case "huge": objects = huge(mb < 0 ? 760 : mb); break;
            default: throw new IllegalArgumentException("unknown shape " + shape);
        }
        System.out.println("ready pid=" + ProcessHandle.current().pid() + " objects=" + objects);
        System.out.flush();
        Thread.sleep(seconds * 1000);
    }

    // a Link is 24 bytes (12 header, 4 next, 8 value)
    static long chains(long mb) {
        long nodes = mb * MB / 24;
        CHAINS = new Link[12];
        long per = nodes / CHAINS.length, v = 0;
        for (int c = 0; c < CHAINS.length; c++) {
            Link head = null;
            for (long i = 0; i < per; i++) head = new Link(head, v++);
            CHAINS[c] = head;
        }
        return per * CHAINS.length + 1;
    }

    // an element: 4 (its slot) + 24 (the Item) + 16 (a Long) or 24 (byte[1..8])
    static long wide(long mb) {
        long elements = mb * MB / 48;
        WIDE = new Object[4][];
        int per = (int) Math.min(elements / WIDE.length, Integer.MAX_VALUE - 16);
        int id = 0;
        for (int a = 0; a < WIDE.length; a++) {
            Object[] arr = new Object[per];
            for (int i = 0; i < per; i++, id++) {
                Object payload;
                if ((id & 1) == 0) {
                    byte[] b = new byte[1 + (id >>> 1) % 8];
                    b[0] = (byte) id;
                    payload = b;
                } else {
                    payload = Long.valueOf(1_000_000L + id); // beyond the cache: an object each
                }
                arr[i] = new Item(payload, id);
            }
            WIDE[a] = arr;
        }
        return 1 + WIDE.length + 2L * per * WIDE.length;
    }

    // a TreeNode is 32 bytes (12 header, 4 x 4 children, 4 id)
    static long deep(long mb) {
        long nodes = mb * MB / 32;
        long branchLen = Math.max(100_000, nodes / 20 / 4); // 5 % in 4 degenerate branches
        long treeNodes = Math.max(1, nodes - 4 * branchLen);
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(42);
        int id = 0;
        ROOT = new TreeNode(id++);
        long made = 1;
        ArrayList<TreeNode> level = new ArrayList<>();
        level.add(ROOT);
        int depth = 1;
        while (made < treeNodes) {
            ArrayList<TreeNode> next = new ArrayList<>(Math.max(16, (int) Math.min(treeNodes - made, (long) level.size() * 4)));
            for (TreeNode n : level) {
                int r = rnd.nextInt(16), kids = r == 0 ? 4 : r < 3 ? 3 : 2; // 2.19 children a node
                for (int k = 0; k < kids && made < treeNodes; k++, made++) {
                    TreeNode c = new TreeNode(id++);
                    n.add(c);
                    next.add(c);
                }
                if (made >= treeNodes) break;
            }
            level = next;
            depth++;
        }
        // the degenerate branches: each hangs from a leaf of the last level
        for (int b = 0; b < 4; b++) {
            TreeNode at = level.get(rnd.nextInt(level.size()));
            for (long i = 0; i < branchLen; i++) {
                TreeNode c = new TreeNode(id++);
                at.add(c);
                at = c;
            }
        }
        level = null;
        return made + 4 * branchLen + 1;
    }

    static long classes(long mb, int count) throws Throwable {
        LOADER = new Loader();
        INSTANCES = new Object[count * 3];
        // the heap a class holds: a byte[] (a third) and an Object[] of Longs
        // (20 bytes a Long with its slot), beside its 3 small instances
        long per = Math.max(64, mb * MB / count - 3 * 40);
        int bytes = (int) Math.max(1, per / 3 - 16), longs = (int) Math.max(1, (per - per / 3) / 20);
        long objects = 2 + count * 5L + (long) count * longs;
        // method handles, not reflection: java.lang.reflect would leave
        // each class a soft-held cache of its Fields (20 objects a class)
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        Class<?> prev = HeapShapes.class;
        long v = 1_000_000;
        for (int i = 0; i < count; i++) {
            int statics = 2 + i % 4;
            String name = "gen.C" + i;
            Class<?> c = LOADER.define(name, classFile(name.replace('.', '/'), statics));
            MethodHandle make = lookup.findConstructor(c, MethodType.methodType(void.class));
            MethodHandle ref = lookup.findSetter(c, "ref", Object.class), val = lookup.findSetter(c, "v", int.class);
            Object[] inst = new Object[3];
            for (int k = 0; k < 3; k++) {
                Object o = make.invoke();
                ref.invoke(o, (Object) new byte[8 + (i + k) % 8]);
                val.invoke(o, i * 3 + k);
                inst[k] = o;
                INSTANCES[i * 3 + k] = o;
            }
            byte[] b = new byte[bytes];
            b[i % bytes] = (byte) i;
            Object[] ls = new Object[longs];
            for (int k = 0; k < longs; k++) ls[k] = Long.valueOf(v++);
            lookup.findStaticSetter(c, "s0", Object.class).invoke((Object) b);
            lookup.findStaticSetter(c, "s1", Object.class).invoke((Object) ls);
            if (statics > 2) lookup.findStaticSetter(c, "s2", Object.class).invoke(inst[0]);
            if (statics > 3) lookup.findStaticSetter(c, "s3", Object.class).invoke((Object) prev);
            lookup.findStaticSetter(c, "n", long.class).invoke((long) i);
            prev = c;
        }
        return objects;
    }

    // a minimal class file (version 52: no stack map frames needed):
    //   public class NAME { public static Object s0..s<statics-1>; public static long n;
    //                       public Object ref; public int v; public NAME() { super(); } }
    static byte[] classFile(String name, int statics) throws IOException {
        ByteArrayOutputStream bos = new ByteArrayOutputStream(512);
        DataOutputStream d = new DataOutputStream(bos);
        d.writeInt(0xCAFEBABE);
        d.writeShort(0);
        d.writeShort(52);
        // constant pool: fixed entries 1..15, then the static fields' names
        d.writeShort(16 + statics);
        utf8(d, name);                                  // 1
        d.writeByte(7); d.writeShort(1);                // 2 Class this
        utf8(d, "java/lang/Object");                    // 3
        d.writeByte(7); d.writeShort(3);                // 4 Class super
        utf8(d, "Ljava/lang/Object;");                  // 5
        utf8(d, "ref");                                 // 6
        utf8(d, "v");                                   // 7
        utf8(d, "I");                                   // 8
        utf8(d, "n");                                   // 9
        utf8(d, "J");                                   // 10
        utf8(d, "<init>");                              // 11
        utf8(d, "()V");                                 // 12
        utf8(d, "Code");                                // 13
        d.writeByte(12); d.writeShort(11); d.writeShort(12); // 14 NameAndType <init>()V
        d.writeByte(10); d.writeShort(4); d.writeShort(14);  // 15 Methodref Object.<init>
        for (int s = 0; s < statics; s++) utf8(d, "s" + s); // 16..
        d.writeShort(0x0021); // public super
        d.writeShort(2);
        d.writeShort(4);
        d.writeShort(0); // interfaces
        d.writeShort(statics + 3);
        for (int s = 0; s < statics; s++) field(d, 0x0009, 16 + s, 5); // public static Object
        field(d, 0x0009, 9, 10);  // public static long n
        field(d, 0x0001, 6, 5);   // public Object ref
        field(d, 0x0001, 7, 8);   // public int v
        d.writeShort(1); // methods: the constructor
        d.writeShort(0x0001);
        d.writeShort(11);
        d.writeShort(12);
        d.writeShort(1);
        d.writeShort(13); // Code
        d.writeInt(17);
        d.writeShort(1); // max stack
        d.writeShort(1); // max locals
        d.writeInt(5);
        d.writeByte(0x2a);                      // aload_0
        d.writeByte(0xb7); d.writeShort(15);    // invokespecial Object.<init>
        d.writeByte(0xb1);                      // return
        d.writeShort(0); // exception table
        d.writeShort(0); // code attributes
        d.writeShort(0); // class attributes
        d.flush();
        return bos.toByteArray();
    }

    static void utf8(DataOutputStream d, String s) throws IOException { d.writeByte(1); d.writeUTF(s); }

    static void field(DataOutputStream d, int flags, int name, int desc) throws IOException {
        d.writeShort(flags);
        d.writeShort(name);
        d.writeShort(desc);
        d.writeShort(0);
    }

    // shares of the heap: long[] 30 %, byte[] 25 %, int[] 10 %, the Object[] of
    // shared objects 28 %, the sparse Object[] 7 %; a reference is 4 bytes
    // here and 8 in the dump (1.35 x the heap)
    static long huge(long mb) {
        long heap = mb * MB;
        int max = Integer.MAX_VALUE - 16;
        HUGE_LONGS = new long[(int) Math.min(max, heap * 30 / 100 / 8)];
        for (int i = 0; i < HUGE_LONGS.length; i++) HUGE_LONGS[i] = i * 0x9E3779B97F4A7C15L;
        HUGE_BYTES = new byte[(int) Math.min(max, heap * 25 / 100)];
        for (int i = 0; i < HUGE_BYTES.length; i += 4096) HUGE_BYTES[i] = (byte) (i >>> 12);
        HUGE_INTS = new int[(int) Math.min(max, heap * 10 / 100 / 4)];
        for (int i = 0; i < HUGE_INTS.length; i++) HUGE_INTS[i] = i;
        Object[] shared = { "shared-0", Long.valueOf(1L << 40), new byte[64], new int[16], new ArrayList<>() };
        HUGE_REFS = new Object[(int) Math.min(max, heap * 28 / 100 / 4)];
        for (int i = 0; i < HUGE_REFS.length; i++) HUGE_REFS[i] = shared[i % shared.length];
        HUGE_SPARSE = new Object[(int) Math.min(max, heap * 7 / 100 / 4)];
        for (int i = 0; i < HUGE_SPARSE.length; i += 1000) HUGE_SPARSE[i] = shared[(i / 1000) % shared.length];
        return 5 + 6;
    }
}
