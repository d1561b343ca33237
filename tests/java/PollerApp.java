// A small JVM app whose threads and files come from its own methods: 60
// threads named poller-0 .. poller-59 started from startPoller(), 61 files
// opened from openCache() (--threads, --files: other counts). Prints
// "ready pid=N" at start and waits for the file --go names (or starts at
// once without it), then "done" when both are made; lives until killed (at
// most 600 s).
//   java tests/java/PollerApp.java [--go FILE] [--dir DIR] [--threads N] [--files N]
import java.io.File;
import java.io.FileInputStream;
import java.util.ArrayList;
import java.util.List;

public class PollerApp {
    static final List<Thread> POLLERS = new ArrayList<>();
    static final List<FileInputStream> CACHE = new ArrayList<>();

    static void startPoller(int n) {
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(() -> {
                try { Thread.sleep(600_000); } catch (InterruptedException e) { }
            }, "poller-" + i);
            t.setDaemon(true);
            t.start();
            POLLERS.add(t);
        }
    }

    static void openCache(File dir, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            File f = new File(dir, "cache-" + i);
            f.createNewFile();
            CACHE.add(new FileInputStream(f));
        }
    }

    public static void main(String[] args) throws Exception {
        File go = null, dir = new File(System.getProperty("java.io.tmpdir"));
        int threads = 60, files = 61;
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (args[i].equals("--go")) go = new File(args[i + 1]);
            else if (args[i].equals("--dir")) dir = new File(args[i + 1]);
            else if (args[i].equals("--threads")) threads = Integer.parseInt(args[i + 1]);
            else if (args[i].equals("--files")) files = Integer.parseInt(args[i + 1]);
            else throw new IllegalArgumentException("unknown option " + args[i]);
        }
        System.out.println("ready pid=" + ProcessHandle.current().pid());
        System.out.flush();
        while (go != null && !go.exists())
            Thread.sleep(20);
        startPoller(threads);
        openCache(dir, files);
        System.out.println("done");
        System.out.flush();
        Thread.sleep(600_000);
    }
}
