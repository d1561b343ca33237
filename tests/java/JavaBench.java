// The Java rows of `make bench` (scripts/bench-java.sh): thread starts,
// file opens and exceptions thrown and caught (what the shim's hook on
// OutOfMemoryError's constructors must not slow: an app that throws
// ordinary exceptions all the time) from Java code, timed inside the JVM
// after a warm-up, so the
// JVM's start is not in the figure. With GO, it prints "ready" and waits for
// that file first (the bench starts it once oomscope takes Java stacks).
// Direct buffers allocated and dropped (direct): what the Unsafe.allocateMemory
// probes (direct memory by call site, issue 36) cost an app that makes many.
//   java JavaBench.java threads|opens|exceptions|direct ITERS DIR [GO]
// prints "MODE ITERS ns/it NS process_cpu_ms MS" (the JVM's CPU time so far)
import java.io.File;
import java.io.FileInputStream;

public class JavaBench {
    static void threads(int n) throws Exception {
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(() -> { }, "bench-" + i);
            t.start();
            t.join();
        }
    }

    static void opens(File f, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            FileInputStream in = new FileInputStream(f);
            in.close();
        }
    }

    static int depth(int k) {
        if (k == 0)
            throw new IllegalStateException("bench");
        return depth(k - 1) + 1;
    }

    static long exceptions(int n) {
        long caught = 0;
        for (int i = 0; i < n; i++) {
            try {
                depth(8);
            } catch (IllegalStateException e) {
                caught += e.getStackTrace().length > 0 ? 1 : 0;
            }
        }
        return caught;
    }

    static long direct(int n) {
        long sum = 0;
        for (int i = 0; i < n; i++)
            sum += java.nio.ByteBuffer.allocateDirect(4096).capacity(); // dropped: freed by its Cleaner
        return sum;
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        int n = Integer.parseInt(args[1]);
        File f = new File(args[2], "bench-file");
        f.createNewFile();
        if (args.length > 3) {
            System.out.println("ready");
            System.out.flush();
            File go = new File(args[3]);
            while (!go.exists())
                Thread.sleep(20);
        }
        for (int round = 0; round < 2; round++) { // the first round warms the JIT up
            int k = round == 0 ? Math.max(1, n / 10) : n;
            long t0 = System.nanoTime();
            if (mode.equals("threads")) threads(k);
            else if (mode.equals("opens")) opens(f, k);
            else if (mode.equals("exceptions")) exceptions(k);
            else if (mode.equals("direct")) direct(k);
            else throw new IllegalArgumentException("unknown mode " + mode);
            long ns = System.nanoTime() - t0;
            if (round == 1) {
                long cpu = ((com.sun.management.OperatingSystemMXBean)
                    java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
                System.out.println(mode + " " + n + " ns/it " + (ns / n) + " process_cpu_ms " + cpu / 1000000);
            }
        }
    }
}
