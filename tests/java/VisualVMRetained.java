// An independent computation of retained sizes, for the tests and the
// benchmark: VisualVM's heap library (Debian package visualvm) opens DUMP and
// writes OUT.tsv, one line per instance: id (hex), shallow size, retained
// size. Prints one JSON line: instances and the seconds spent loading and
// computing retained sizes.
//   java -cp org-graalvm-visualvm-lib-jfluid-heap.jar VisualVMRetained.java DUMP OUT.tsv
import org.graalvm.visualvm.lib.jfluid.heap.*;
import java.io.BufferedWriter;
import java.io.File;
import java.io.FileWriter;
import java.io.PrintWriter;
import java.util.Iterator;

public class VisualVMRetained {
    public static void main(String[] args) throws Exception {
        long t0 = System.nanoTime();
        Heap heap = HeapFactory.createHeap(new File(args[0]));
        long t1 = System.nanoTime();
        Iterator<Instance> first = heap.getAllInstancesIterator();
        if (first.hasNext())
            first.next().getRetainedSize(); // the first call computes them all
        long t2 = System.nanoTime(), n = 0;
        try (PrintWriter w = new PrintWriter(new BufferedWriter(new FileWriter(args[1]), 1 << 20))) {
            for (Iterator<Instance> it = heap.getAllInstancesIterator(); it.hasNext();) {
                Instance i = it.next();
                w.print(Long.toHexString(i.getInstanceId()));
                w.print('\t');
                w.print(i.getSize());
                w.print('\t');
                w.println(i.getRetainedSize());
                n++;
            }
        }
        System.out.printf("{\"instances\":%d,\"seconds_load\":%.3f,\"seconds_retained\":%.3f}%n", n, (t1 - t0) / 1e9,
                (t2 - t1) / 1e9);
    }
}
