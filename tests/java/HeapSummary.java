// An independent reading of a heap dump, for the tests: VisualVM's heap
// library (Debian package visualvm) opens DUMP and this prints one JSON object:
// object counts, classes, GC roots, total shallow size (its model), and
// order-independent digests of the reference graph and of primitive field
// values, so two dumps with the same objects and references compare equal
// whatever the order of their records. Primitive array contents are not in
// any digest (a restored dump has them zero-filled).
//   java -cp org-graalvm-visualvm-lib-jfluid-heap.jar HeapSummary.java DUMP
import org.graalvm.visualvm.lib.jfluid.heap.*;
import java.io.File;
import java.util.Iterator;

public class HeapSummary {
    static long mix(long h, long v) {
        h ^= v;
        h *= 0x100000001b3L;
        return h ^ (h >>> 29);
    }

    static long mix(long h, String s) {
        return mix(h, s == null ? 0 : s.hashCode());
    }

    public static void main(String[] args) throws Exception {
        Heap heap = HeapFactory.createHeap(new File(args[0]));
        long objects = 0, plain = 0, objArrays = 0, primArrays = 0, shallow = 0;
        long refsDigest = 0, primDigest = 0, refs = 0;
        for (Iterator<Instance> it = heap.getAllInstancesIterator(); it.hasNext();) {
            Instance i = it.next();
            long h = mix(0xcbf29ce484222325L, i.getInstanceId());
            long p = h;
            h = mix(h, i.getJavaClass().getName());
            objects++;
            shallow += i.getSize();
            if (i instanceof ObjectArrayInstance) {
                objArrays++;
                for (Instance v : ((ObjectArrayInstance) i).getValues()) {
                    h = mix(h, v == null ? 0 : v.getInstanceId());
                    refs++;
                }
            } else if (i instanceof PrimitiveArrayInstance) {
                primArrays++;
                h = mix(h, ((PrimitiveArrayInstance) i).getLength());
            } else {
                plain++;
                for (FieldValue f : i.getFieldValues()) {
                    if (f instanceof ObjectFieldValue) {
                        Instance v = ((ObjectFieldValue) f).getInstance();
                        h = mix(mix(h, f.getField().getName()), v == null ? 0 : v.getInstanceId());
                        refs++;
                    } else {
                        p = mix(mix(p, f.getField().getName()), f.getValue());
                    }
                }
            }
            refsDigest += h; // a sum: independent of the order of instances
            primDigest += p;
        }
        System.out.printf("{\"objects\":%d,\"instances\":%d,\"object_arrays\":%d,\"primitive_arrays\":%d," +
                "\"classes\":%d,\"gc_roots\":%d,\"shallow_bytes\":%d,\"references\":%d," +
                "\"refs_digest\":\"%016x\",\"prim_digest\":\"%016x\"}%n",
                objects, plain, objArrays, primArrays, heap.getAllClasses().size(), heap.getGCRoots().size(),
                shallow, refs, refsDigest, primDigest);
    }
}
