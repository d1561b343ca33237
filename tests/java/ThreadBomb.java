// Starts sleeping threads ("bomb-N", from ThreadBomb.spawn) until the JVM
// cannot create another, then prints the OutOfMemoryError and exits with 3.
// Prints "ready pid=N" and, with --go FILE, waits for FILE to exist first
// (a watcher attaches meanwhile). Run it under a low thread limit (a pids
// cgroup's pids.max).
import java.nio.file.Files;
import java.nio.file.Path;

public class ThreadBomb {
    static int spawn() {
        int n = 0;
        while (true) {
            Thread t = new Thread(() -> {
                try { Thread.sleep(Long.MAX_VALUE); } catch (InterruptedException e) { }
            }, "bomb-" + n);
            t.setDaemon(true);
            t.start();
            n++;
        }
    }

    public static void main(String[] args) throws Exception {
        Path go = args.length == 2 && args[0].equals("--go") ? Path.of(args[1]) : null;
        System.out.println("ready pid=" + ProcessHandle.current().pid());
        System.out.flush();
        while (go != null && !Files.exists(go))
            Thread.sleep(20);
        try {
            spawn();
        } catch (OutOfMemoryError e) {
            System.out.println("OutOfMemoryError: " + e.getMessage());
            System.out.flush();
            System.exit(3);
        }
    }
}
