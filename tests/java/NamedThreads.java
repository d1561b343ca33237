// Starts --count threads named "ImageDecoderWorkerThread" (longer than the 15
// characters the kernel keeps) after --delay seconds, or once the file --go
// names exists, so a watcher attached before then sees them start. Prints "ready pid=N", then "started N" once
// all of them run.
public class NamedThreads {
    public static void main(String[] args) throws Exception {
        int count = 8;
        long delayMs = 3000;
        java.io.File go = null;
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (args[i].equals("--count")) count = Integer.parseInt(args[i + 1]);
            else if (args[i].equals("--delay")) delayMs = (long) (Double.parseDouble(args[i + 1]) * 1000);
            else if (args[i].equals("--go")) go = new java.io.File(args[i + 1]);
            else throw new IllegalArgumentException("unknown option " + args[i]);
        }
        System.out.println("ready pid=" + ProcessHandle.current().pid());
        System.out.flush();
        if (go == null)
            Thread.sleep(delayMs);
        else // --go FILE: the threads start once FILE exists (a watcher has attached)
            while (!go.exists()) Thread.sleep(20);
        // "started" once every thread runs its own code: HotSpot's thread__start
        // probe, which fires as a thread starts, has fired for each by then
        java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(count);
        for (int i = 0; i < count; i++) {
            Thread t = new Thread(() -> {
                running.countDown();
                try { Thread.sleep(600_000); } catch (InterruptedException e) { }
            }, "ImageDecoderWorkerThread");
            t.setDaemon(true);
            t.start();
        }
        running.await();
        System.out.println("started " + count);
        System.out.flush();
        Thread.sleep(600_000);
    }
}
