// An independent computation of "reachable-only" retained sizes with Eclipse
// MAT's object graph, for the tests: it reads DUMP (HPROF, plain or gzip), takes
// every object's shallow size from OURS.tsv (the analyzer's --retained-tsv:
// id in hex, shallow, retained, optional tags `class` / `unreachable`; only the
// shallow column is used), builds MAT's graph, computes the dominator tree
// from a virtual root over the GC roots and writes OUT.tsv sorted by id:
// `id<TAB>retained` for reachable objects, `id<TAB>unreachable` otherwise.
// Prints one JSON line: objects, reachable, unreachable, unreachableBytes,
// seconds and unreachableByClass (count and shallow bytes per class name).
//   java -Xmx4g MatRetained.java DUMP OURS.tsv OUT.tsv
//   java MatRetained.java --self-test
//
// The graph (MAT's):
//  nodes   every INSTANCE, OBJECT ARRAY, PRIMITIVE ARRAY (also Android's NODATA)
//          and CLASS DUMP record; of two records with one id the first counts.
//  edges   instance -> its class, its non-null object fields (own class first,
//          then superclasses; Reference.referent is an ordinary field);
//          object array -> its class, its non-null elements; primitive array ->
//          the class named "<type>[]" if the dump has one (first in file);
//          class -> superclass, class loader, object statics, java.lang.Class;
//          thread -> the objects of its JNI_LOCAL / JAVA_FRAME / NATIVE_STACK /
//          THREAD_BLOCK roots (thread given earlier by a THREAD_OBJECT root).
//          (A THREAD_OBJECT root counts only if its object is a node; of two
//          with one serial the later one seen so far.)
//  roots   every other root record (UNREACHABLE 0x90 is none); if the dump has
//          no STICKY_CLASS root, every class with loader 0 (or a loader id no
//          object of the dump has: MAT takes it for the boot loader) not named "...[]"
//          (a class without a LOAD_CLASS name counts as not so named).
//  Only the first heap dump of a file is read: HEAP_DUMP / HEAP_DUMP_SEGMENT
//  records after the first HEAP_DUMP_END are ignored (with a note on stderr).
//  A truncated file is read up to its last whole record (with a warning).
// Dominators: Cooper, Harvey and Kennedy's iterative algorithm over a reverse
// postorder from an iterative depth-first search (see chk() for the two
// shortcuts that keep it fast on linked lists; MAT_RETAINED_PLAIN_CHK=1 runs
// it as published instead, which is slow on them, for cross-checks).
// MAT_RETAINED_DEBUG=1 prints the time of each phase on stderr.
import java.io.*;
import java.nio.file.*;
import java.util.*;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

public class MatRetained {
    static final class Fail extends RuntimeException {
        Fail(String m) { super(m); }
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("--self-test")) {
            try {
                selfTest();
            } catch (Fail f) {
                System.err.println("mat_retained: self-test: " + f.getMessage());
                System.exit(1);
            }
            System.out.println("self-test ok");
            return;
        }
        if (args.length != 3) {
            System.err.println("mat_retained: usage: MatRetained.java DUMP OURS.tsv OUT.tsv | --self-test");
            System.exit(2);
        }
        try {
            System.out.println(run(args[0], args[1], args[2]));
        } catch (Fail f) {
            System.err.println("mat_retained: " + f.getMessage());
            System.exit(1);
        } catch (IOException e) {
            System.err.println("mat_retained: " + e);
            System.exit(1);
        }
    }

    // ---------------------------------------------------------------- input

    /** A big-endian reader over a stream, with its own buffer and file offset. */
    static final class In implements Closeable {
        final InputStream in;
        final byte[] buf = new byte[1 << 20];
        int pos, lim;
        long base; // file offset of buf[0]

        In(InputStream in) { this.in = in; }

        long offset() { return base + pos; }

        /** Makes n (<= buf.length) bytes available; false at end of input before that. */
        boolean have(int n) throws IOException {
            if (lim - pos >= n)
                return true;
            System.arraycopy(buf, pos, buf, 0, lim - pos);
            base += pos;
            lim -= pos;
            pos = 0;
            while (lim < n) {
                int r = in.read(buf, lim, buf.length - lim);
                if (r < 0)
                    return false;
                lim += r;
            }
            return true;
        }

        void need(int n) throws IOException {
            if (!have(n))
                throw new EOFException("end of input at offset " + (base + lim));
        }

        int u1() throws IOException { need(1); return buf[pos++] & 0xff; }

        int u2() throws IOException {
            need(2);
            int v = ((buf[pos] & 0xff) << 8) | (buf[pos + 1] & 0xff);
            pos += 2;
            return v;
        }

        int u4() throws IOException {
            need(4);
            int v = ((buf[pos] & 0xff) << 24) | ((buf[pos + 1] & 0xff) << 16) | ((buf[pos + 2] & 0xff) << 8)
                    | (buf[pos + 3] & 0xff);
            pos += 4;
            return v;
        }

        long u8() throws IOException {
            long hi = u4() & 0xffffffffL;
            return (hi << 32) | (u4() & 0xffffffffL);
        }

        long id(int size) throws IOException { return size == 4 ? u4() & 0xffffffffL : u8(); }

        void bytes(byte[] b, int off, int len) throws IOException {
            while (len > 0) {
                if (pos == lim)
                    need(1);
                int n = Math.min(len, lim - pos);
                System.arraycopy(buf, pos, b, off, n);
                pos += n;
                off += n;
                len -= n;
            }
        }

        void skip(long n) throws IOException {
            while (n > 0) {
                if (pos == lim)
                    need(1);
                int k = (int) Math.min(n, lim - pos);
                pos += k;
                n -= k;
            }
        }

        public void close() throws IOException { in.close(); }
    }

    static In open(String path) throws IOException {
        int b0, b1;
        try (InputStream probe = new FileInputStream(path)) {
            b0 = probe.read();
            b1 = probe.read();
        }
        InputStream s = new FileInputStream(path);
        if (b0 == 0x1f && b1 == 0x8b)
            s = new GZIPInputStream(s, 1 << 16);
        return new In(s);
    }

    // ------------------------------------------------------ small containers

    static final class LongList {
        long[] a = new long[1024];
        int n;

        void add(long v) {
            if (n == a.length)
                a = Arrays.copyOf(a, a.length * 2);
            a[n++] = v;
        }
    }

    static final class IntList {
        int[] a = new int[1024];
        int n;

        void add(int v) {
            if (n == a.length)
                a = Arrays.copyOf(a, a.length * 2);
            a[n++] = v;
        }
    }

    static final class ByteList {
        byte[] a = new byte[1024];
        int n;

        void add(int v) {
            if (n == a.length)
                a = Arrays.copyOf(a, a.length * 2);
            a[n++] = (byte) v;
        }
    }

    /** Open addressing map from a 64-bit id to a non-negative int; -1 when absent. */
    static final class IdMap {
        long[] keys = new long[1 << 16];
        int[] vals = new int[1 << 16];
        int size;

        IdMap() { Arrays.fill(vals, -1); }

        static int hash(long k) {
            k ^= k >>> 33;
            k *= 0xff51afd7ed558ccdL;
            k ^= k >>> 33;
            k *= 0xc4ceb9fe1a85ec53L;
            k ^= k >>> 33;
            return (int) k;
        }

        int get(long k) {
            int m = keys.length - 1;
            for (int i = hash(k) & m;; i = (i + 1) & m) {
                int v = vals[i];
                if (v < 0)
                    return -1;
                if (keys[i] == k)
                    return v;
            }
        }

        /** Adds k -> v unless k is present; returns the value k had, or -1. */
        int putIfAbsent(long k, int v) {
            if (2 * (size + 1) > keys.length)
                grow();
            int m = keys.length - 1;
            for (int i = hash(k) & m;; i = (i + 1) & m) {
                if (vals[i] < 0) {
                    keys[i] = k;
                    vals[i] = v;
                    size++;
                    return -1;
                }
                if (keys[i] == k)
                    return vals[i];
            }
        }

        void grow() {
            long[] ok = keys;
            int[] ov = vals;
            keys = new long[ok.length * 2];
            vals = new int[ok.length * 2];
            Arrays.fill(vals, -1);
            int m = keys.length - 1;
            for (int j = 0; j < ok.length; j++) {
                if (ov[j] < 0)
                    continue;
                int i = hash(ok[j]) & m;
                while (vals[i] >= 0)
                    i = (i + 1) & m;
                keys[i] = ok[j];
                vals[i] = ov[j];
            }
        }
    }

    // ------------------------------------------------------------ the dump

    static final byte INSTANCE = 0, OBJ_ARRAY = 1, PRIM_ARRAY = 2, CLASS = 3;

    static final class ClassInfo {
        long id, superId, loaderId;
        long[] statics; // object-typed static values (0 included)
        byte[] fieldTypes; // this class's own instance fields, in order
        byte[] layout; // fieldTypes of this class, then its superclass's, ...
        int node;
    }

    static final class Dump {
        int idSize;
        final HashMap<Long, String> strings = new HashMap<>();
        final HashMap<Long, Long> classNames = new HashMap<>(); // class object id -> name string id
        final IdMap nodeOf = new IdMap();
        final LongList nodeId = new LongList(), nodeOffset = new LongList(), nodeClass = new LongList();
        final ByteList nodeKind = new ByteList();
        final HashMap<Long, ClassInfo> classes = new HashMap<>();
        final ArrayList<ClassInfo> classOrder = new ArrayList<>();
        final ByteList rootKind = new ByteList();
        final LongList rootObj = new LongList();
        final IntList rootSerial = new IntList();
        boolean anySticky;
        String truncated;
        boolean dumpEnded; // the first heap dump's HEAP_DUMP_END was seen
        long ignoredDumps;

        int nodes() { return nodeId.n; }

        /** Adds a node unless its id is one already; returns whether it did. */
        boolean node(long id, long offset, byte kind, long cls) {
            if (nodeOf.putIfAbsent(id, nodeId.n) >= 0)
                return false;
            nodeId.add(id);
            nodeOffset.add(offset);
            nodeKind.add(kind);
            nodeClass.add(cls);
            return true;
        }

        String className(long classId) {
            Long s = classNames.get(classId);
            String name = s == null ? null : strings.get(s);
            return name == null ? null : javaName(name);
        }
    }

    static int typeSize(int t, int idSize) {
        switch (t) {
            case 2: return idSize;
            case 4: case 8: return 1;
            case 5: case 9: return 2;
            case 6: case 10: return 4;
            case 7: case 11: return 8;
            default: throw new Fail("bad basic type " + t);
        }
    }

    static final String[] PRIM = { null, null, null, null, "boolean", "char", "float", "double", "byte", "short",
            "int", "long" };

    /** "[B" -> "byte[]", "[Ljava/lang/String;" -> "java.lang.String[]", "a/B" -> "a.B". */
    static String javaName(String s) {
        int dims = 0;
        while (dims < s.length() && s.charAt(dims) == '[')
            dims++;
        if (dims == 0)
            return s.replace('/', '.');
        String elem = s.substring(dims);
        String base;
        if (elem.startsWith("L") && elem.endsWith(";"))
            base = elem.substring(1, elem.length() - 1).replace('/', '.');
        else if (elem.length() == 1 && "ZCFDBSIJ".indexOf(elem.charAt(0)) >= 0)
            base = PRIM["ZCFDBSIJ".indexOf(elem.charAt(0)) + 4];
        else
            base = elem.replace('/', '.');
        StringBuilder b = new StringBuilder(base);
        for (int i = 0; i < dims; i++)
            b.append("[]");
        return b.toString();
    }

    static String modifiedUtf8(byte[] b) {
        StringBuilder s = new StringBuilder(b.length);
        for (int i = 0; i < b.length;) {
            int c = b[i] & 0xff;
            if (c < 0x80) {
                s.append((char) c);
                i++;
            } else if ((c & 0xe0) == 0xc0 && i + 1 < b.length) {
                s.append((char) (((c & 0x1f) << 6) | (b[i + 1] & 0x3f)));
                i += 2;
            } else if ((c & 0xf0) == 0xe0 && i + 2 < b.length) {
                s.append((char) (((c & 0x0f) << 12) | ((b[i + 1] & 0x3f) << 6) | (b[i + 2] & 0x3f)));
                i += 3;
            } else {
                s.append('\ufffd');
                i++;
            }
        }
        return s.toString();
    }

    /** Reads the header; returns the id size. */
    static int header(In in) throws IOException {
        StringBuilder h = new StringBuilder();
        for (int c; (c = in.u1()) != 0;) {
            if (h.length() > 64)
                throw new Fail("not an HPROF file (no header string)");
            h.append((char) c);
        }
        String v = h.toString();
        if (!v.equals("JAVA PROFILE 1.0.1") && !v.equals("JAVA PROFILE 1.0.2") && !v.equals("JAVA PROFILE 1.0.3"))
            throw new Fail("not a known HPROF header: \"" + v + "\"");
        int idSize = in.u4();
        if (idSize != 4 && idSize != 8)
            throw new Fail("unsupported identifier size " + idSize);
        in.u8();
        return idSize;
    }

    /**
     * Pass 1: strings, class names, class dumps, nodes and root records. Pass 2:
     * the references in instances and object arrays (needs every class layout).
     */
    static void parse(String path, Dump d, int pass, IntList esrc, IntList edst) throws IOException {
        d.dumpEnded = false;
        try (In in = open(path)) {
            int ids = header(in);
            if (pass == 1)
                d.idSize = ids;
            byte[] data = new byte[4096];
            ClassInfo lastClass = null;
            try {
                while (in.have(1)) {
                    int tag = in.u1();
                    in.u4();
                    long len = in.u4() & 0xffffffffL;
                    long end = in.offset() + len;
                    if (tag == 0x01 && pass == 1) {
                        if (len < ids || len - ids > Integer.MAX_VALUE - 16)
                            throw new Fail("bad STRING record length " + len);
                        long sid = in.id(ids);
                        byte[] b = new byte[(int) (len - ids)];
                        in.bytes(b, 0, b.length);
                        d.strings.put(sid, modifiedUtf8(b));
                    } else if (tag == 0x02 && pass == 1) {
                        in.u4();
                        long cid = in.id(ids);
                        in.u4();
                        long nid = in.id(ids);
                        d.classNames.put(cid, nid);
                        in.skip(end - in.offset());
                    } else if (tag == 0x2c) {
                        d.dumpEnded = true;
                        in.skip(len);
                    } else if ((tag == 0x0c || tag == 0x1c) && d.dumpEnded) {
                        if (pass == 1)
                            d.ignoredDumps++;
                        in.skip(len);
                    } else if (tag == 0x0c || tag == 0x1c) {
                        while (in.offset() < end) {
                            long off = in.offset();
                            int sub = in.u1();
                            switch (sub) {
                                case 0xff: case 0x05: case 0x07: case 0x89: case 0x8a: case 0x8b: case 0x8c:
                                case 0x8d: { // roots: ID
                                    long o = in.id(ids);
                                    if (pass == 1)
                                        root(d, sub, o, 0);
                                    break;
                                }
                                case 0x90: // UNREACHABLE: no root
                                    in.id(ids);
                                    break;
                                case 0x01: { // JNI GLOBAL: ID object, ID ref
                                    long o = in.id(ids);
                                    in.id(ids);
                                    if (pass == 1)
                                        root(d, sub, o, 0);
                                    break;
                                }
                                case 0x02: case 0x03: case 0x08: case 0x8e: { // ID, u4 thread serial, u4
                                    long o = in.id(ids);
                                    int serial = in.u4();
                                    in.u4();
                                    if (pass == 1)
                                        root(d, sub, o, serial);
                                    break;
                                }
                                case 0x04: case 0x06: { // ID, u4 thread serial
                                    long o = in.id(ids);
                                    int serial = in.u4();
                                    if (pass == 1)
                                        root(d, sub, o, serial);
                                    break;
                                }
                                case 0xfe: // HEAP DUMP INFO: u4 heap id, ID name
                                    in.u4();
                                    in.id(ids);
                                    break;
                                case 0x20:
                                    classDump(in, d, pass, off, ids);
                                    break;
                                case 0x21: { // INSTANCE
                                    long o = in.id(ids);
                                    in.u4();
                                    long cid = in.id(ids);
                                    int n = in.u4();
                                    if (n < 0)
                                        throw new Fail("instance 0x" + Long.toHexString(o) + " with " + (n & 0xffffffffL) + " bytes");
                                    if (pass == 1) {
                                        in.skip(n);
                                        d.node(o, off, INSTANCE, cid);
                                        break;
                                    }
                                    int node = d.nodeOf.get(o);
                                    if (node < 0 || d.nodeOffset.a[node] != off) {
                                        in.skip(n);
                                        break;
                                    }
                                    if (data.length < n)
                                        data = new byte[Math.max(n, data.length * 2)];
                                    in.bytes(data, 0, n);
                                    ClassInfo c = lastClass != null && lastClass.id == cid ? lastClass : d.classes.get(cid);
                                    if (c == null)
                                        break;
                                    lastClass = c;
                                    byte[] lay = layout(d, c);
                                    int p = 0;
                                    for (byte t : lay) {
                                        int sz = typeSize(t, ids);
                                        if (p + sz > n)
                                            break;
                                        if (t == 2) {
                                            long v = 0;
                                            for (int k = 0; k < sz; k++)
                                                v = (v << 8) | (data[p + k] & 0xff);
                                            edge(d, node, v, esrc, edst);
                                        }
                                        p += sz;
                                    }
                                    break;
                                }
                                case 0x22: { // OBJECT ARRAY
                                    long o = in.id(ids);
                                    in.u4();
                                    long count = in.u4() & 0xffffffffL;
                                    long cid = in.id(ids);
                                    if (pass == 1) {
                                        in.skip(count * ids);
                                        d.node(o, off, OBJ_ARRAY, cid);
                                        break;
                                    }
                                    int node = d.nodeOf.get(o);
                                    if (node < 0 || d.nodeOffset.a[node] != off) {
                                        in.skip(count * ids);
                                        break;
                                    }
                                    for (long k = 0; k < count; k++)
                                        edge(d, node, in.id(ids), esrc, edst);
                                    break;
                                }
                                case 0x23: case 0xc3: { // PRIMITIVE ARRAY (NODATA: no elements)
                                    long o = in.id(ids);
                                    in.u4();
                                    long count = in.u4() & 0xffffffffL;
                                    int t = in.u1();
                                    if (t == 2)
                                        throw new Fail("primitive array 0x" + Long.toHexString(o) + " of objects");
                                    int sz = typeSize(t, ids);
                                    if (sub == 0x23)
                                        in.skip(count * sz);
                                    if (pass == 1)
                                        d.node(o, off, PRIM_ARRAY, -t);
                                    break;
                                }
                                default:
                                    throw new Fail(String.format("unknown heap dump sub-record 0x%02x at offset %d", sub, off));
                            }
                        }
                        if (in.offset() != end)
                            throw new Fail("heap dump sub-record runs past its record's end at offset " + end);
                    } else {
                        in.skip(len);
                    }
                }
            } catch (EOFException e) {
                if (pass == 1)
                    d.truncated = e.getMessage();
            }
        }
    }

    static void root(Dump d, int kind, long obj, int serial) {
        if (kind == 0x05)
            d.anySticky = true;
        d.rootKind.add(kind);
        d.rootObj.add(obj);
        d.rootSerial.add(serial);
    }

    static void edge(Dump d, int from, long to, IntList esrc, IntList edst) {
        if (to == 0)
            return;
        int t = d.nodeOf.get(to);
        if (t < 0)
            return;
        esrc.add(from);
        edst.add(t);
    }

    static void classDump(In in, Dump d, int pass, long off, int ids) throws IOException {
        ClassInfo c = new ClassInfo();
        c.id = in.id(ids);
        in.u4();
        c.superId = in.id(ids);
        c.loaderId = in.id(ids);
        in.id(ids); // signers
        in.id(ids); // protection domain
        in.id(ids);
        in.id(ids);
        in.u4(); // instance size
        int cp = in.u2();
        for (int i = 0; i < cp; i++) {
            in.u2();
            in.skip(typeSize(in.u1(), ids));
        }
        int ns = in.u2();
        LongList statics = new LongList();
        for (int i = 0; i < ns; i++) {
            in.id(ids);
            int t = in.u1();
            if (t == 2)
                statics.add(in.id(ids));
            else
                in.skip(typeSize(t, ids));
        }
        int nf = in.u2();
        c.fieldTypes = new byte[nf];
        for (int i = 0; i < nf; i++) {
            in.id(ids);
            c.fieldTypes[i] = (byte) in.u1();
            typeSize(c.fieldTypes[i], ids); // checks the type
        }
        c.statics = Arrays.copyOf(statics.a, statics.n);
        if (pass == 1 && d.node(c.id, off, CLASS, 0)) {
            c.node = d.nodes() - 1;
            d.classes.put(c.id, c);
            d.classOrder.add(c);
        }
    }

    static byte[] layout(Dump d, ClassInfo c) {
        if (c.layout != null)
            return c.layout;
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        HashSet<Long> seen = new HashSet<>();
        for (ClassInfo k = c; k != null && seen.add(k.id); k = k.superId == 0 ? null : d.classes.get(k.superId))
            b.write(k.fieldTypes, 0, k.fieldTypes.length);
        return c.layout = b.toByteArray();
    }

    // ---------------------------------------------------------- dominators

    /**
     * Retained sizes over the graph of n nodes with the given edges, rooted at a
     * virtual node with an edge to every root: ret[v] for a reachable v, -1
     * otherwise. The edge arrays are consumed (may be released by the caller).
     */
    static long[] retained(int n, int[] esrc, int[] edst, int ne, int[] roots, int nr, long[] shallow, boolean plain) {
        final int S = n, N = n + 1;
        long t0 = System.nanoTime();
        // successors, CSR
        int[] off = new int[N + 1];
        for (int i = 0; i < ne; i++)
            off[esrc[i] + 1]++;
        off[S + 1] += nr;
        for (int i = 0; i < N; i++)
            off[i + 1] += off[i];
        int[] succ = new int[ne + nr];
        int[] fill = Arrays.copyOf(off, N);
        for (int i = 0; i < ne; i++)
            succ[fill[esrc[i]]++] = edst[i];
        for (int i = 0; i < nr; i++)
            succ[fill[S]++] = roots[i];
        fill = null;
        // iterative depth-first search from S: postorder
        int[] num = new int[N]; // -1 unvisited, then reverse-postorder number
        Arrays.fill(num, -1);
        int[] stack = new int[N], cursor = new int[N], post = new int[N];
        int sp = 0, np = 0;
        stack[sp++] = S;
        num[S] = 0;
        cursor[S] = off[S];
        while (sp > 0) {
            int v = stack[sp - 1];
            if (cursor[v] < off[v + 1]) {
                int w = succ[cursor[v]++];
                if (num[w] < 0) {
                    num[w] = 0;
                    cursor[w] = off[w];
                    stack[sp++] = w;
                }
            } else {
                sp--;
                post[np++] = v;
            }
        }
        stack = null;
        cursor = null;
        final int R = np; // reachable nodes, S included
        int[] order = new int[R]; // reverse-postorder number -> node
        for (int i = 0; i < R; i++) {
            order[i] = post[R - 1 - i];
            num[order[i]] = i;
        }
        post = null;
        // predecessors in reverse-postorder numbers, CSR
        int[] poff = new int[R + 1];
        for (int v = 0; v < N; v++) {
            if (num[v] < 0)
                continue;
            for (int e = off[v]; e < off[v + 1]; e++)
                poff[num[succ[e]] + 1]++;
        }
        for (int i = 0; i < R; i++)
            poff[i + 1] += poff[i];
        int[] pred = new int[poff[R]];
        int[] pfill = Arrays.copyOf(poff, R);
        for (int v = 0; v < N; v++) {
            if (num[v] < 0)
                continue;
            for (int e = off[v]; e < off[v + 1]; e++)
                pred[pfill[num[succ[e]]]++] = num[v];
        }
        pfill = null;
        succ = null;
        off = null;
        debug("depth-first search, predecessors (" + (R - 1) + " reachable)", t0);
        int[] idom = plain ? chkPlain(R, poff, pred) : chk(R, poff, pred);
        pred = null;
        // retained sizes: children before parents
        long[] acc = new long[R];
        for (int b = R - 1; b >= 1; b--) {
            acc[b] += shallow[order[b]];
            acc[idom[b]] += acc[b];
        }
        long[] ret = new long[n];
        Arrays.fill(ret, -1);
        for (int b = 1; b < R; b++)
            ret[order[b]] = acc[b];
        return ret;
    }

    /**
     * Cooper, Harvey and Kennedy's iterative algorithm as published, over nodes
     * numbered in reverse postorder (0 the root; pred in those numbers): sweeps
     * in that order, intersecting by single steps up the tree, until nothing
     * changes. Returns idom (an ancestor always has the smaller number). Exact,
     * but it takes one sweep per element of a doubly linked list reached from
     * both ends (java.util.LinkedList, LinkedHashMap): the self-test's referee.
     */
    static int[] chkPlain(int R, int[] poff, int[] pred) {
        int[] idom = new int[R];
        Arrays.fill(idom, -1);
        idom[0] = 0;
        for (boolean changed = true; changed;) {
            changed = false;
            for (int b = 1; b < R; b++) {
                int nd = -1;
                for (int e = poff[b]; e < poff[b + 1]; e++) {
                    int p = pred[e];
                    if (idom[p] < 0)
                        continue;
                    if (nd < 0) {
                        nd = p;
                        continue;
                    }
                    int x = p, y = nd;
                    while (x != y) {
                        while (x > y)
                            x = idom[x];
                        while (y > x)
                            y = idom[y];
                    }
                    nd = x;
                }
                if (idom[b] != nd) {
                    idom[b] = nd;
                    changed = true;
                }
            }
        }
        return idom;
    }

    /**
     * The same iteration, to the same fixed point (the dominator tree), made
     * fast on heaps. Two changes, neither changes a result:
     *  - Sweeps alternate: forward in reverse postorder (the first as in
     *    chkPlain), then backward. Dominance that has to travel against the
     *    order (along a doubly linked list from its tail) takes one backward
     *    sweep instead of one sweep per element. The iteration is monotone, so
     *    any order of updates reaches the same fixed point.
     *  - intersect() climbs with skew-binary jump pointers (Myers), not one
     *    step at a time (a node's chain can be a list's length long). In a
     *    forward sweep the nodes before b are final for the sweep and those
     *    from b on still hold the tree the sweep started with; in a backward
     *    sweep it is the other way round. Depth and jump pointers describe,
     *    per node, the tree it belongs to in that split (built as nodes are
     *    updated in a forward sweep, which leaves them right for the whole tree;
     *    rebuilt before a forward sweep), and a backward sweep climbs the
     *    updated nodes after b with path-compressed pointers to the first node
     *    not after b (kept in jump[], no longer needed for those nodes).
     */
    static int[] chk(int R, int[] poff, int[] pred) {
        int[] idom = new int[R], depth = new int[R], jump = new int[R];
        Arrays.fill(idom, -1);
        idom[0] = 0;
        int sweeps = 0;
        for (boolean changed = true; changed; sweeps++) {
            changed = false;
            // A forward sweep climbs the tree it starts with by jump pointers, and
            // the backward sweep before it left other pointers in jump[]. (A
            // forward sweep leaves jump[] and depth[] right for the backward one.)
            if (sweeps > 0 && sweeps % 2 == 0)
                for (int v = 1; v < R; v++) {
                    depth[v] = depth[idom[v]] + 1;
                    jump[v] = skew(idom[v], depth, jump);
                }
            if (sweeps % 2 == 0) {
                for (int b = 1; b < R; b++) {
                    int nd = -1;
                    for (int e = poff[b]; e < poff[b + 1] && nd != 0; e++) {
                        int p = pred[e];
                        if (idom[p] < 0)
                            continue;
                        int x = p;
                        while (x >= b) { // not yet updated: the old tree
                            int j = jump[x];
                            x = j >= b ? j : idom[x];
                        }
                        nd = nd < 0 ? x : lca(x, nd, idom, depth, jump);
                    }
                    if (idom[b] != nd) {
                        idom[b] = nd;
                        changed = true;
                    }
                    depth[b] = depth[nd] + 1;
                    jump[b] = skew(nd, depth, jump);
                }
            } else {
                for (int b = R - 1; b >= 1; b--) {
                    int nd = -1;
                    for (int e = poff[b]; e < poff[b + 1] && nd != 0; e++) {
                        int p = pred[e];
                        int x = p;
                        if (x > b) { // updated in this sweep: climb to the first node <= b
                            int r = x;
                            while (r > b)
                                r = jump[r];
                            while (x > b) {
                                int next = jump[x];
                                jump[x] = r;
                                x = next;
                            }
                        }
                        if (x == b)
                            x = idom[b];
                        nd = nd < 0 ? x : lca(x, nd, idom, depth, jump);
                    }
                    if (idom[b] != nd) {
                        idom[b] = nd;
                        changed = true;
                    }
                    jump[b] = nd;
                }
            }
        }
        if (DEBUG)
            System.err.println("mat_retained: dominators: " + sweeps + " sweeps");
        return idom;
    }

    /** The jump pointer of a new child of p. */
    static int skew(int p, int[] depth, int[] jump) {
        int j = jump[p];
        return depth[p] - depth[j] == depth[j] - depth[jump[j]] ? jump[j] : p;
    }

    /** The nearest common ancestor of x and y. */
    static int lca(int x, int y, int[] idom, int[] depth, int[] jump) {
        if (depth[x] < depth[y]) {
            int t = x;
            x = y;
            y = t;
        }
        int d = depth[y];
        while (depth[x] > d) {
            int j = jump[x];
            x = depth[j] >= d ? j : idom[x];
        }
        while (x != y) {
            int jx = jump[x], jy = jump[y];
            if (jx != jy) {
                x = jx;
                y = jy;
            } else {
                x = idom[x];
                y = idom[y];
            }
        }
        return x;
    }

    static final boolean PLAIN_CHK = System.getenv("MAT_RETAINED_PLAIN_CHK") != null;

    // ---------------------------------------------------------------- main

    static String run(String dumpPath, String oursPath, String outPath) throws IOException {
        long t0 = System.nanoTime();
        Dump d = new Dump();
        parse(dumpPath, d, 1, null, null);
        if (d.truncated != null)
            System.err.println("mat_retained: warning: " + dumpPath + " is truncated (" + d.truncated
                    + "); using the records before that");
        if (d.ignoredDumps > 0)
            System.err.println("mat_retained: note: " + dumpPath + " holds more than one heap dump; only the first is read ("
                    + d.ignoredDumps + " later heap dump record(s) ignored)");
        final int n = d.nodes();
        debug("pass 1", t0);
        long[] shallow = readOurs(oursPath, d);

        IntList esrc = new IntList(), edst = new IntList();
        // class objects: superclass, loader, object statics, java.lang.Class
        int classOfClass = -1;
        for (ClassInfo c : d.classOrder)
            if ("java.lang.Class".equals(d.className(c.id))) {
                classOfClass = c.node;
                break;
            }
        for (ClassInfo c : d.classOrder) {
            edge(d, c.node, c.superId, esrc, edst);
            edge(d, c.node, c.loaderId, esrc, edst);
            for (long s : c.statics)
                edge(d, c.node, s, esrc, edst);
            if (classOfClass >= 0) {
                esrc.add(c.node);
                edst.add(classOfClass);
            }
        }
        // primitive arrays: the class named "<type>[]" (first in file order)
        int[] primClass = new int[12];
        Arrays.fill(primClass, -1);
        for (ClassInfo c : d.classOrder) {
            String name = d.className(c.id);
            for (int t = 4; t < 12; t++)
                if (primClass[t] < 0 && (PRIM[t] + "[]").equals(name))
                    primClass[t] = c.node;
        }
        // instances and object arrays: their class
        for (int v = 0; v < n; v++) {
            byte k = d.nodeKind.a[v];
            if (k == INSTANCE || k == OBJ_ARRAY) {
                int c = d.nodeOf.get(d.nodeClass.a[v]);
                if (c >= 0 && d.nodeKind.a[c] == CLASS) {
                    esrc.add(v);
                    edst.add(c);
                }
            } else if (k == PRIM_ARRAY) {
                int c = primClass[(int) -d.nodeClass.a[v]];
                if (c >= 0) {
                    esrc.add(v);
                    edst.add(c);
                }
            }
        }
        // roots, and thread locals as edges from their thread
        IntList roots = new IntList();
        HashMap<Integer, Integer> threads = new HashMap<>();
        for (int i = 0; i < d.rootKind.n; i++) {
            int kind = d.rootKind.a[i] & 0xff;
            int o = d.rootObj.a[i] == 0 ? -1 : d.nodeOf.get(d.rootObj.a[i]);
            int serial = d.rootSerial.a[i];
            if (kind == 0x08) {
                if (o >= 0)
                    threads.put(serial, o);
            } else if (kind == 0x02 || kind == 0x03 || kind == 0x04 || kind == 0x06) {
                Integer t = threads.get(serial);
                if (t != null) {
                    if (o >= 0) {
                        esrc.add(t);
                        edst.add(o);
                    }
                    continue;
                }
            }
            if (o >= 0)
                roots.add(o);
        }
        if (!d.anySticky)
            for (ClassInfo c : d.classOrder) {
                String name = d.className(c.id);
                // MAT: a loader id that names no object of the dump is the boot loader's (0)
                if ((c.loaderId == 0 || d.nodeOf.get(c.loaderId) < 0) && (name == null || !name.endsWith("[]")))
                    roots.add(c.node);
            }
        // instances and object arrays: their references
        debug("OURS.tsv, class edges, roots", t0);
        parse(dumpPath, d, 2, esrc, edst);
        debug("pass 2", t0);

        long[] ret = retained(n, esrc.a, edst.a, esrc.n, roots.a, roots.n, shallow, PLAIN_CHK);
        esrc = edst = null;
        debug("dominators", t0);

        // OUT.tsv, by unsigned id
        long[] sorted = Arrays.copyOf(d.nodeId.a, n);
        for (int i = 0; i < n; i++)
            sorted[i] ^= Long.MIN_VALUE;
        Arrays.sort(sorted);
        long reachable = 0, unreachable = 0, unreachableBytes = 0;
        HashMap<String, long[]> byClass = new HashMap<>();
        try (BufferedWriter w = new BufferedWriter(new FileWriter(outPath), 1 << 20)) {
            for (int i = 0; i < n; i++) {
                long id = sorted[i] ^ Long.MIN_VALUE;
                int v = d.nodeOf.get(id);
                w.write(Long.toHexString(id));
                w.write('\t');
                if (ret[v] >= 0) {
                    reachable++;
                    w.write(Long.toString(ret[v]));
                } else {
                    unreachable++;
                    unreachableBytes += shallow[v];
                    w.write("unreachable");
                    long[] cb = byClass.computeIfAbsent(nodeClassName(d, v), k -> new long[2]);
                    cb[0]++;
                    cb[1] += shallow[v];
                }
                w.write('\n');
            }
        }
        ArrayList<Map.Entry<String, long[]>> list = new ArrayList<>(byClass.entrySet());
        list.sort((a, b) -> a.getValue()[1] != b.getValue()[1] ? Long.compare(b.getValue()[1], a.getValue()[1])
                : a.getKey().compareTo(b.getKey()));
        StringBuilder j = new StringBuilder();
        j.append("{\"objects\":").append(n).append(",\"reachable\":").append(reachable).append(",\"unreachable\":")
                .append(unreachable).append(",\"unreachableBytes\":").append(unreachableBytes).append(",\"seconds\":")
                .append(String.format(Locale.ROOT, "%.3f", (System.nanoTime() - t0) / 1e9))
                .append(",\"unreachableByClass\":[");
        for (int i = 0; i < list.size(); i++) {
            if (i > 0)
                j.append(',');
            j.append("{\"className\":");
            jsonString(j, list.get(i).getKey());
            j.append(",\"count\":").append(list.get(i).getValue()[0]).append(",\"bytes\":")
                    .append(list.get(i).getValue()[1]).append('}');
        }
        return j.append("]}").toString();
    }

    static final boolean DEBUG = System.getenv("MAT_RETAINED_DEBUG") != null;

    static void debug(String what, long t0) {
        if (DEBUG)
            System.err.printf(Locale.ROOT, "mat_retained: %.3f s: %s%n", (System.nanoTime() - t0) / 1e9, what);
    }

    static String nodeClassName(Dump d, int v) {
        switch (d.nodeKind.a[v]) {
            case CLASS:
                return "java.lang.Class";
            case PRIM_ARRAY:
                return PRIM[(int) -d.nodeClass.a[v]] + "[]";
            default: {
                String s = d.className(d.nodeClass.a[v]);
                return s != null ? s : "<unknown class 0x" + Long.toHexString(d.nodeClass.a[v]) + ">";
            }
        }
    }

    static void jsonString(StringBuilder j, String s) {
        j.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\')
                j.append('\\').append(c);
            else if (c < 0x20 || c > 0x7e)
                j.append(String.format("\\u%04x", (int) c));
            else
                j.append(c);
        }
        j.append('"');
    }

    /** OURS.tsv: the shallow size of every node (column 2). */
    static long[] readOurs(String path, Dump d) throws IOException {
        int n = d.nodes();
        long[] shallow = new long[n];
        boolean[] seen = new boolean[n];
        long extra = 0, lineNo = 0;
        try (InputStream in = new BufferedInputStream(new FileInputStream(path), 1 << 20)) {
            int c = in.read();
            while (c >= 0) {
                lineNo++;
                if (c == '\n') {
                    c = in.read();
                    continue;
                }
                long id = 0;
                int digits = 0;
                if (c == '0') { // tolerate a 0x prefix
                    c = in.read();
                    digits = 1;
                    if (c == 'x' || c == 'X') {
                        c = in.read();
                        digits = 0;
                    }
                }
                for (;; c = in.read()) {
                    int h = Character.digit(c, 16);
                    if (c < 0 || h < 0)
                        break;
                    id = (id << 4) | h;
                    digits++;
                }
                if (digits == 0 || digits > 16 || c != '\t')
                    throw new Fail(path + ":" + lineNo + ": bad id");
                c = in.read();
                long sh = 0;
                int sd = 0;
                for (; c >= '0' && c <= '9'; c = in.read(), sd++)
                    sh = sh * 10 + (c - '0');
                if (sd == 0 || sd > 18 || (c != '\t' && c != '\n' && c != '\r' && c >= 0))
                    throw new Fail(path + ":" + lineNo + ": bad shallow size");
                while (c >= 0 && c != '\n')
                    c = in.read();
                int v = d.nodeOf.get(id);
                if (v < 0)
                    extra++;
                else if (!seen[v]) {
                    seen[v] = true;
                    shallow[v] = sh;
                }
            }
        }
        int missing = 0;
        long first = 0;
        for (int v = 0; v < n; v++)
            if (!seen[v] && missing++ == 0)
                first = d.nodeId.a[v];
        if (missing > 0)
            throw new Fail(path + ": " + missing + " object(s) of the dump missing, the first 0x" + Long.toHexString(first));
        if (extra > 0)
            System.err.println("mat_retained: warning: " + path + " has " + extra + " id(s) that are no object of the dump");
        return shallow;
    }

    // ----------------------------------------------------------- self-test

    static void check(boolean ok, String what) {
        if (!ok)
            throw new Fail(what);
    }

    /** Retained sizes by definition: d dominates v iff v is unreachable once d is removed. */
    static long[] bruteForce(int n, int[][] edges, int[] roots, long[] shallow) {
        boolean[] base = reach(n, edges, roots, -1);
        long[] ret = new long[n];
        for (int x = 0; x < n; x++) {
            if (!base[x]) {
                ret[x] = -1;
                continue;
            }
            boolean[] r = reach(n, edges, roots, x);
            for (int v = 0; v < n; v++)
                if (base[v] && (v == x || !r[v]))
                    ret[x] += shallow[v];
        }
        return ret;
    }

    static boolean[] reach(int n, int[][] edges, int[] roots, int removed) {
        boolean[] r = new boolean[n];
        ArrayDeque<Integer> q = new ArrayDeque<>();
        for (int x : roots)
            if (x != removed && !r[x]) {
                r[x] = true;
                q.add(x);
            }
        while (!q.isEmpty()) {
            int v = q.poll();
            for (int[] e : edges)
                if (e[0] == v && e[1] != removed && !r[e[1]]) {
                    r[e[1]] = true;
                    q.add(e[1]);
                }
        }
        return r;
    }

    static long[] viaChk(int n, int[][] edges, int[] roots, long[] shallow, boolean plain) {
        int[] s = new int[edges.length], t = new int[edges.length];
        for (int i = 0; i < edges.length; i++) {
            s[i] = edges[i][0];
            t[i] = edges[i][1];
        }
        return retained(n, s, t, edges.length, roots.clone(), roots.length, shallow, plain);
    }

    static void graphCase(String name, int n, int[][] edges, int[] roots, long[] shallow, long[] want) {
        for (boolean plain : new boolean[] { false, true }) {
            long[] got = viaChk(n, edges, roots, shallow, plain);
            check(Arrays.equals(got, want), name + (plain ? " (plain)" : "") + ": got " + Arrays.toString(got) + ", want "
                    + Arrays.toString(want));
        }
        check(Arrays.equals(bruteForce(n, edges, roots, shallow), want), name + ": brute force disagrees");
    }

    static void selfTest() throws IOException {
        long[] p = { 1, 2, 4, 8, 16, 32 };
        graphCase("chain", 4, new int[][] { { 0, 1 }, { 1, 2 }, { 2, 3 } }, new int[] { 0 }, p,
                new long[] { 15, 14, 12, 8 });
        graphCase("diamond", 4, new int[][] { { 0, 1 }, { 0, 2 }, { 1, 3 }, { 2, 3 } }, new int[] { 0 }, p,
                new long[] { 15, 2, 4, 8 });
        graphCase("cycle", 3, new int[][] { { 0, 1 }, { 1, 2 }, { 2, 0 } }, new int[] { 0 }, p,
                new long[] { 7, 6, 4 });
        graphCase("cycle entered twice", 4, new int[][] { { 0, 1 }, { 0, 2 }, { 1, 2 }, { 2, 1 }, { 1, 3 } },
                new int[] { 0 }, p, new long[] { 15, 10, 4, 8 });
        graphCase("only from an unreachable object", 4, new int[][] { { 1, 2 }, { 2, 3 }, { 3, 0 } },
                new int[] { 0 }, p, new long[] { 1, -1, -1, -1 });
        graphCase("two roots share a child", 3, new int[][] { { 0, 2 }, { 1, 2 } }, new int[] { 0, 1 }, p,
                new long[] { 1, 2, 4 });
        graphCase("root reached from another root", 3, new int[][] { { 0, 1 }, { 1, 2 }, { 0, 0 } },
                new int[] { 0, 1, 1 }, p, new long[] { 1, 6, 4 });
        graphCase("self loops and no edges", 2, new int[][] { { 1, 1 } }, new int[] {}, p, new long[] { -1, -1 });
        // irreducible loop: CHK needs more than one iteration
        graphCase("irreducible", 6, new int[][] { { 0, 1 }, { 0, 2 }, { 1, 3 }, { 2, 4 }, { 3, 4 }, { 4, 3 }, { 3, 5 },
                { 4, 5 }, { 5, 1 } }, new int[] { 0 }, p, new long[] { 63, 2, 4, 8, 16, 32 });
        Random rnd = new Random(42);
        for (int round = 0; round < 6000; round++) {
            int n = 1 + rnd.nextInt(round < 3000 ? 12 : 60);
            int m = rnd.nextInt(3 * n + 1);
            int[][] edges = new int[m][];
            for (int i = 0; i < m; i++)
                edges[i] = new int[] { rnd.nextInt(n), rnd.nextInt(n) };
            int[] roots = new int[rnd.nextInt(3)];
            for (int i = 0; i < roots.length; i++)
                roots[i] = rnd.nextInt(n);
            long[] sh = new long[n];
            for (int i = 0; i < n; i++)
                sh[i] = rnd.nextInt(1000);
            long[] want = bruteForce(n, edges, roots, sh);
            for (boolean plain : new boolean[] { false, true }) {
                long[] got = viaChk(n, edges, roots, sh, plain);
                check(Arrays.equals(got, want), "random graph " + round + (plain ? " (plain)" : "") + ": got "
                        + Arrays.toString(got) + ", want " + Arrays.toString(want));
            }
        }
        // a long chain: no recursion anywhere
        int big = 2_000_000;
        int[] s = new int[big - 1], t = new int[big - 1];
        for (int i = 0; i + 1 < big; i++) {
            s[i] = i;
            t[i] = i + 1;
        }
        long[] ones = new long[big];
        Arrays.fill(ones, 1);
        long[] r = retained(big, s, t, big - 1, new int[] { 0 }, 1, ones, false);
        check(r[0] == big && r[big / 2] == big - big / 2 && r[big - 1] == 1, "long chain");
        // ... with a pointer from every element to one object hanging off the first
        int h = big - 1, ne = 0;
        s = new int[2 * big];
        t = new int[2 * big];
        for (int i = 0; i + 2 < big; i++) {
            s[ne] = i;
            t[ne++] = i + 1;
        }
        for (int i = 0; i < h; i++) {
            s[ne] = i;
            t[ne++] = h;
        }
        r = retained(big, s, t, ne, new int[] { 1, 0 }, 2, ones, false);
        check(r[0] == 1 && r[1] == big - 2 && r[h] == 1 && r[h - 1] == 1, "long chain with back pointers");
        // a doubly linked list held at both ends (LinkedList): dominated by its holder
        ne = 0;
        for (int i = 1; i + 1 < big; i++) {
            s[ne] = i;
            t[ne++] = i + 1;
            s[ne] = i + 1;
            t[ne++] = i;
        }
        s[ne] = 0;
        t[ne++] = 1;
        s[ne] = 0;
        t[ne++] = big - 1;
        r = retained(big, s, t, ne, new int[] { 0 }, 1, ones, false);
        for (int i = 1; i < big; i++)
            check(r[i] == 1, "doubly linked list: element " + i + " retains " + r[i]);
        check(r[0] == big, "doubly linked list: holder retains " + r[0]);
        // a chain whose last element points back to every element
        ne = 0;
        for (int i = 0; i + 1 < big; i++) {
            s[ne] = i;
            t[ne++] = i + 1;
            s[ne] = big - 1;
            t[ne++] = i;
        }
        r = retained(big, s, t, ne, new int[] { 0 }, 1, ones, false);
        check(r[0] == big && r[1] == big - 1 && r[big - 1] == 1, "chain pointed back to from its end");
        // bigger random graphs (chains with random extra edges) against the plain algorithm
        for (int round = 0; round < 300; round++) {
            int n = 2 + rnd.nextInt(3000);
            ArrayList<int[]> es = new ArrayList<>();
            for (int i = 0; i + 1 < n; i++)
                if (rnd.nextInt(10) > 0)
                    es.add(new int[] { i, i + 1 });
            for (int i = rnd.nextInt(n / 2 + 1); i > 0; i--)
                es.add(new int[] { rnd.nextInt(n), rnd.nextInt(n) });
            for (int i = rnd.nextInt(8); i > 0; i--) { // runs of back pointers
                int a = rnd.nextInt(n), len = rnd.nextInt(n - a), to = rnd.nextInt(n);
                for (int k = a; k < a + len; k++)
                    es.add(rnd.nextBoolean() ? new int[] { k, to } : new int[] { to, k });
            }
            int[][] edges = es.toArray(new int[0][]);
            int[] roots = new int[1 + rnd.nextInt(3)];
            for (int i = 0; i < roots.length; i++)
                roots[i] = rnd.nextInt(Math.min(n, 5));
            long[] sh = new long[n];
            for (int i = 0; i < n; i++)
                sh[i] = rnd.nextInt(100);
            check(Arrays.equals(viaChk(n, edges, roots, sh, false), viaChk(n, edges, roots, sh, true)),
                    "bigger random graph " + round + ": the two iterations disagree");
        }
        dumpTest(8, "JAVA PROFILE 1.0.3", false);
        dumpTest(8, "JAVA PROFILE 1.0.3", true);
        dumpTest(4, "JAVA PROFILE 1.0.2", false);
    }

    /** Writes a small dump exercising the parser and the graph rules, and checks the whole program on it. */
    static final class W {
        final ByteArrayOutputStream b = new ByteArrayOutputStream();
        final int ids;

        W(int ids) { this.ids = ids; }

        W u1(int v) { b.write(v); return this; }
        W u2(int v) { return u1(v >>> 8).u1(v); }
        W u4(long v) { return u2((int) (v >>> 16) & 0xffff).u2((int) v & 0xffff); }
        W id(long v) { return ids == 4 ? u4(v) : u4(v >>> 32).u4(v); }
        W bytes(byte[] x) { b.write(x, 0, x.length); return this; }
        byte[] done() { return b.toByteArray(); }
    }

    static void dumpTest(int ids, String version, boolean gzip) throws IOException {
        W f = new W(ids);
        f.bytes(version.getBytes("US-ASCII")).u1(0).u4(ids).u4(0).u4(0);
        String[] names = { null, "java/lang/Object", "java/lang/Class", "Foo", "[B", "x", "[Ljava/lang/Object;",
                "sfield", "Bar", "next", "y", "byte[]" };
        for (int i = 1; i < names.length; i++) {
            byte[] nb = names[i].getBytes("US-ASCII");
            f.u1(0x01).u4(0).u4(ids + nb.length).id(i).bytes(nb);
        }
        long[][] lc = { { 0x100, 1 }, { 0x101, 2 }, { 0x102, 3 }, { 0x103, 4 }, { 0x104, 6 }, { 0x105, 8 }, { 0x107, 11 } };
        for (long[] l : lc)
            f.u1(0x02).u4(0).u4(8 + 2 * ids).u4(1).id(l[0]).u4(0).id(l[1]);
        W h = new W(ids);
        // Android's heap info, then classes
        h.u1(0xfe).u4('A').id(5);
        classDump(h, 0x100, 0, 0);
        classDump(h, 0x101, 0x100, 0);
        // Foo: static sfield = 0x201, a constant pool entry; fields x:int, next:Object
        h.u1(0x20).id(0x102).u4(0).id(0x100).id(0x500).id(0).id(0).id(0).id(0).u4(16);
        h.u2(1).u2(3).u1(10).u4(99);
        h.u2(2).id(7).u1(2).id(0x201).id(5).u1(11).u4(0).u4(1);
        h.u2(2).id(5).u1(10).id(9).u1(2);
        classDump(h, 0x103, 0x100, 0);
        classDump(h, 0x104, 0x100, 0);
        // Bar extends Foo: field y:Object; instance layout y, x, next
        h.u1(0x20).id(0x105).u4(0).id(0x102).id(0x500).id(0).id(0).id(0).id(0).u4(24);
        h.u2(0).u2(0).u2(1).id(10).u1(2);
        instance(h, 0x500, 0x100, new W(ids));
        instance(h, 0x201, 0x102, new W(ids).u4(7).id(0x202));
        instance(h, 0x202, 0x105, new W(ids).id(0x203).u4(0).id(0x999));
        instance(h, 0x203, 0x100, new W(ids));
        instance(h, 0x201, 0x102, new W(ids).u4(7).id(0x300)); // duplicate id: ignored
        h.u1(0x23).id(0x204).u4(0).u4(3).u1(8).u1(1).u1(2).u1(3);
        h.u1(0x23).id(0x205).u4(0).u4(2).u1(5).u2('h').u2('i');
        instance(h, 0x206, 0x100, new W(ids));
        h.u1(0x22).id(0x300).u4(0).u4(4).id(0x104).id(0x205).id(0).id(0x206).id(0x999);
        for (long o : new long[] { 0x400, 0x401, 0x402, 0x403, 0x404, 0x405, 0x406 })
            instance(h, o, 0x100, new W(ids));
        classDump(h, 0x107, 0x100, 0); // a second class named byte[]: no primitive array's class
        h.u1(0xc3).id(0x600).u4(0).u4(1000).u1(10); // NODATA int[]
        byte[] seg1 = h.done();
        W r = new W(ids); // a second segment: roots
        r.u1(0x08).id(0x400).u4(1).u4(0); // thread 1
        r.u1(0x03).id(0x401).u4(1).u4(0); // its frame: an edge 0x400 -> 0x401
        r.u1(0x03).id(0x402).u4(2).u4(0); // thread 2 not given yet: a root
        r.u1(0x08).id(0x403).u4(2).u4(0); // thread 2
        r.u1(0x04).id(0x404).u4(2); // native stack of thread 2: an edge 0x403 -> 0x404
        r.u1(0x08).id(0x405).u4(1).u4(0); // thread 1 again: latest wins
        r.u1(0x06).id(0x406).u4(1); // thread block: an edge 0x405 -> 0x406
        r.u1(0x02).id(0x999).u4(1).u4(0); // a local that is no object: nothing
        r.u1(0x08).id(0x998).u4(3).u4(0); // a thread that is no object
        r.u1(0x02).id(0x206).u4(3).u4(0); // ... so thread 3 is unknown: a root
        r.u1(0x01).id(0x202).id(0x777); // JNI global
        r.u1(0x90).id(0x300); // UNREACHABLE: no root
        r.u1(0x8e).id(0x600).u4(1).u4(0); // JNI monitor: a root
        r.u1(0x89).id(0x203); // interned string: a root
        r.u1(0xff).id(0x204); // unknown: a root
        r.u1(0x8d).id(0);
        byte[] seg2 = r.done();
        f.u1(0x1c).u4(0).u4(seg1.length).bytes(seg1);
        f.u1(0x0c).u4(0).u4(seg2.length).bytes(seg2);
        f.u1(0x2c).u4(0).u4(0);
        byte[] dump = f.done();

        // the graph above, by hand (no STICKY_CLASS: 0x100 and 0x101 are roots)
        long[] id = { 0x100, 0x101, 0x102, 0x103, 0x104, 0x105, 0x500, 0x201, 0x202, 0x203, 0x204, 0x205, 0x206, 0x300,
                0x400, 0x401, 0x402, 0x403, 0x404, 0x405, 0x406, 0x600, 0x107 };
        long[][] e = { { 0x100, 0x101 }, { 0x101, 0x100 }, { 0x101, 0x101 }, { 0x102, 0x100 }, { 0x102, 0x500 },
                { 0x102, 0x201 }, { 0x102, 0x101 }, { 0x103, 0x100 }, { 0x103, 0x101 }, { 0x104, 0x100 },
                { 0x104, 0x101 }, { 0x105, 0x102 }, { 0x105, 0x500 }, { 0x105, 0x101 }, { 0x500, 0x100 },
                { 0x201, 0x102 }, { 0x201, 0x202 }, { 0x202, 0x105 }, { 0x202, 0x203 }, { 0x203, 0x100 },
                { 0x204, 0x103 }, { 0x206, 0x100 }, { 0x300, 0x104 }, { 0x300, 0x205 }, { 0x300, 0x206 },
                { 0x400, 0x100 }, { 0x401, 0x100 }, { 0x402, 0x100 }, { 0x403, 0x100 }, { 0x404, 0x100 },
                { 0x405, 0x100 }, { 0x406, 0x100 }, { 0x400, 0x401 }, { 0x403, 0x404 }, { 0x405, 0x406 }, { 0x107, 0x100 },
                { 0x107, 0x101 } };
        long[] rootIds = { 0x100, 0x101, 0x400, 0x402, 0x403, 0x405, 0x206, 0x202, 0x600, 0x203, 0x204 };
        HashMap<Long, Integer> ix = new HashMap<>();
        for (int i = 0; i < id.length; i++)
            ix.put(id[i], i);
        int[][] edges = new int[e.length][];
        for (int i = 0; i < e.length; i++)
            edges[i] = new int[] { ix.get(e[i][0]), ix.get(e[i][1]) };
        int[] roots = new int[rootIds.length];
        for (int i = 0; i < roots.length; i++)
            roots[i] = ix.get(rootIds[i]);
        long[] sh = new long[id.length];
        for (int i = 0; i < id.length; i++)
            sh[i] = 1L << i;
        long[] want = bruteForce(id.length, edges, roots, sh);

        Path dir = Files.createTempDirectory("matretained");
        try {
            Path dp = dir.resolve("d.hprof"), ours = dir.resolve("ours.tsv"), out = dir.resolve("out.tsv");
            if (gzip)
                try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(dp))) {
                    o.write(dump);
                }
            else
                Files.write(dp, dump);
            StringBuilder o = new StringBuilder();
            for (int i = 0; i < id.length; i++)
                o.append(Long.toHexString(id[i])).append('\t').append(sh[i]).append("\t0")
                        .append(i % 3 == 0 ? "\tclass" : i % 3 == 1 ? "\tclass\tunreachable" : "").append('\n');
            Files.writeString(ours, o);
            String json = run(dp.toString(), ours.toString(), out.toString());
            long[] sorted = id.clone();
            Arrays.sort(sorted);
            StringBuilder expect = new StringBuilder();
            long unreachBytes = 0;
            int unreach = 0;
            for (long x : sorted) {
                int i = ix.get(x);
                expect.append(Long.toHexString(x)).append('\t').append(want[i] < 0 ? "unreachable" : Long.toString(want[i]))
                        .append('\n');
                if (want[i] < 0) {
                    unreach++;
                    unreachBytes += sh[i];
                }
            }
            String got = Files.readString(out);
            check(got.equals(expect.toString()), "dump (" + ids + "-byte ids" + (gzip ? ", gzip" : "") + "): got\n" + got
                    + "want\n" + expect);
            // unreachable: 0x104 and 0x107 (classes), 0x205 (char[]), 0x300 (Object[])
            check(unreach == 4, "dump: " + unreach + " unreachable, want 4");
            String wantJson = "{\"objects\":23,\"reachable\":19,\"unreachable\":4,\"unreachableBytes\":" + unreachBytes;
            String wantClasses = ",\"unreachableByClass\":[{\"className\":\"java.lang.Class\",\"count\":2,\"bytes\":4194320},"
                    + "{\"className\":\"java.lang.Object[]\",\"count\":1,\"bytes\":8192},"
                    + "{\"className\":\"char[]\",\"count\":1,\"bytes\":2048}]}";
            check(json.startsWith(wantJson + ",\"seconds\":") && json.endsWith(wantClasses), "dump: JSON " + json);
            // an object missing from OURS.tsv is an error
            Files.writeString(ours, o.substring(o.indexOf("\n") + 1));
            boolean failed = false;
            try {
                run(dp.toString(), ours.toString(), out.toString());
            } catch (Fail x) {
                failed = true;
            }
            check(failed, "dump: an object missing from OURS.tsv is no error");
        } finally {
            for (String name : new String[] { "d.hprof", "ours.tsv", "out.tsv" })
                Files.deleteIfExists(dir.resolve(name));
            Files.deleteIfExists(dir);
        }
        check(javaName("[B").equals("byte[]") && javaName("[Ljava/lang/String;").equals("java.lang.String[]")
                && javaName("[[I").equals("int[][]") && javaName("java/lang/String").equals("java.lang.String")
                && javaName("byte[]").equals("byte[]"), "javaName");
    }

    static void classDump(W h, long id, long sup, long loader) {
        h.u1(0x20).id(id).u4(0).id(sup).id(loader).id(0).id(0).id(0).id(0).u4(0).u2(0).u2(0).u2(0);
    }

    static void instance(W h, long id, long cls, W data) {
        byte[] b = data.done();
        h.u1(0x21).id(id).u4(0).id(cls).u4(b.length).bytes(b);
    }
}
