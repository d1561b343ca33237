// Starts --count threads named "ImageDecoderWorkerThread" (longer than the 15
// characters the kernel keeps) after --delay seconds, so a watcher attached
// before then sees them start. Prints "ready pid=N", then "started N".
public class NamedThreads {
    public static void main(String[] args) throws Exception {
        int count = 8;
        long delayMs = 3000;
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (args[i].equals("--count")) count = Integer.parseInt(args[i + 1]);
            else if (args[i].equals("--delay")) delayMs = (long) (Double.parseDouble(args[i + 1]) * 1000);
            else throw new IllegalArgumentException("unknown option " + args[i]);
        }
        System.out.println("ready pid=" + ProcessHandle.current().pid());
        System.out.flush();
        Thread.sleep(delayMs);
        for (int i = 0; i < count; i++) {
            Thread t = new Thread(() -> {
                try { Thread.sleep(600_000); } catch (InterruptedException e) { }
            }, "ImageDecoderWorkerThread");
            t.setDaemon(true);
            t.start();
        }
        System.out.println("started " + count);
        System.out.flush();
        Thread.sleep(600_000);
    }
}
