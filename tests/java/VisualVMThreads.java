// An independent reading of a dump's threads, for the tests: VisualVM's heap
// library (Debian package visualvm) prints one line per thread object:
// its id (hex), then its stack trace as "Class.method:LINE" separated by
// " | " (LINE "-" where the dump has no line number). Thread roots whose
// object is not in the dump are left out.
//   java -cp org-graalvm-visualvm-lib-jfluid-heap.jar VisualVMThreads.java DUMP
import org.graalvm.visualvm.lib.jfluid.heap.*;
import java.io.File;

public class VisualVMThreads {
    public static void main(String[] args) throws Exception {
        Heap heap = HeapFactory.createHeap(new File(args[0]));
        for (GCRoot root : heap.getGCRoots()) {
            if (!(root instanceof ThreadObjectGCRoot))
                continue;
            ThreadObjectGCRoot t = (ThreadObjectGCRoot) root;
            if (t.getInstance() == null)
                continue; // a thread object the dump does not hold
            StringBuilder b = new StringBuilder(Long.toHexString(t.getInstance().getInstanceId()));
            StackTraceElement[] st = t.getStackTrace();
            for (int i = 0; st != null && i < st.length; i++) {
                b.append(i == 0 ? "\t" : " | ");
                b.append(st[i].getClassName()).append('.').append(st[i].getMethodName()).append(':');
                b.append(st[i].getLineNumber() > 0 ? Integer.toString(st[i].getLineNumber()) : "-");
            }
            System.out.println(b);
        }
    }
}
