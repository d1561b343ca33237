// Shallow and retained sizes as VisualVM's heap library (Debian package
// visualvm) computes them, for the tests: it opens DUMP and writes OUT.tsv,
// sorted by id, one line per instance: id (hex), shallow size, retained size;
// and one line per class object, the same with a fourth column "class" (its
// shallow size is that of a java.lang.Class instance in the library's model).
// Prints one JSON line: instances, classes, seconds spent loading and
// computing retained sizes, and the ten largest retained sizes.
// The library writes DUMP.hwcache/ beside DUMP: open a copy.
//   java -Xmx8g -cp org-graalvm-visualvm-lib-jfluid-heap.jar RetainedSizes.java DUMP OUT.tsv
import org.graalvm.visualvm.lib.jfluid.heap.*;
import java.io.BufferedWriter;
import java.io.File;
import java.io.FileWriter;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

public class RetainedSizes {
    static long[] ids = new long[1 << 20], shallow = new long[1 << 20], retained = new long[1 << 20];
    static boolean[] isClass = new boolean[1 << 20];
    static int n;

    static void add(long id, long size, long ret, boolean cls) {
        if (n == ids.length) {
            ids = Arrays.copyOf(ids, 2 * n);
            shallow = Arrays.copyOf(shallow, 2 * n);
            retained = Arrays.copyOf(retained, 2 * n);
            isClass = Arrays.copyOf(isClass, 2 * n);
        }
        ids[n] = id;
        shallow[n] = size;
        retained[n] = ret;
        isClass[n++] = cls;
    }

    static boolean isClassObject(Instance i) {
        return i.getClass().getSimpleName().equals("ClassDumpInstance"); // the library's class objects
    }

    public static void main(String[] args) throws Exception {
        long t0 = System.nanoTime();
        Heap heap = HeapFactory.createHeap(new File(args[0]));
        List<JavaClass> classes = heap.getAllClasses();
        long t1 = System.nanoTime();
        Iterator<Instance> first = heap.getAllInstancesIterator();
        if (first.hasNext())
            first.next().getRetainedSize(); // the first call computes them all
        long t2 = System.nanoTime();
        long instances = 0, classObjects = 0;
        for (Iterator<Instance> it = heap.getAllInstancesIterator(); it.hasNext();) {
            Instance i = it.next();
            if (isClassObject(i)) {
                classObjects++; // written below, with all the other classes
                continue;
            }
            add(i.getInstanceId(), i.getSize(), i.getRetainedSize(), false);
            instances++;
        }
        for (JavaClass c : classes) {
            Instance i = heap.getInstanceByID(c.getJavaClassId());
            if (i != null)
                add(i.getInstanceId(), i.getSize(), i.getRetainedSize(), true);
        }
        Integer[] order = new Integer[n];
        for (int k = 0; k < n; k++)
            order[k] = k;
        Arrays.sort(order, (a, b) -> Long.compareUnsigned(ids[a], ids[b]));
        try (PrintWriter w = new PrintWriter(new BufferedWriter(new FileWriter(args[1]), 1 << 20))) {
            for (int k : order) {
                w.print(Long.toHexString(ids[k]));
                w.print('\t');
                w.print(shallow[k]);
                w.print('\t');
                w.print(retained[k]);
                w.print(isClass[k] ? "\tclass\n" : "\n");
            }
        }
        Arrays.sort(order, (a, b) -> retained[a] != retained[b] ? Long.compare(retained[b], retained[a])
                : Long.compareUnsigned(ids[a], ids[b]));
        StringBuilder top = new StringBuilder();
        for (int k = 0; k < Math.min(10, n); k++)
            top.append(k == 0 ? "" : ",").append("[\"").append(Long.toHexString(ids[order[k]])).append("\",")
                    .append(retained[order[k]]).append(']');
        System.out.printf("{\"instances\":%d,\"classes\":%d,\"class_objects_in_iterator\":%d," +
                "\"seconds_load\":%.3f,\"seconds_retained\":%.3f,\"top\":[%s]}%n", instances, n - instances,
                classObjects, (t1 - t0) / 1e9, (t2 - t1) / 1e9, top);
    }
}
