// An app for real ART (build/art: Java 8 language, no lambdas, libcore 10's
// classes), as tests/bats/art.bats runs it:
//   ArtApp [--leak-mb-per-s R] [--max-mb M] [--go FILE] [--attach-fifo FIFO]
//          [--fds N] [--threads N] [--seconds S] [--dump-at-mb N PATH]
//          [--hold-after-oom FILE]
// Prints "ready pid=N". With --go FILE, waits for FILE before it starts its
// work: N files opened from Java (CacheLoader.openAll), N threads started
// (WorkerPool.startAll), each printed ("opened N", "started N"); then it leaks
// R MB a second into a static list (SessionCache.CLOSED, Session objects of
// 64 KiB each) until M MB, printing "leaked_mb=K" each second, until the heap
// runs out (ART's OutOfMemoryError ends it) or S seconds (default 600).
// --attach-fifo: a stand-in for ActivityThread's handling of `cmd activity
// attach-agent`: each line read from FIFO is an agent ("PATH=OPTIONS") given
// to dalvik.system.VMDebug.attachAgent with the app's class loader, catching
// only IOException as ActivityThread.attemptAttachAgent does: a
// SecurityException (ART refusing the agent) reaches the uncaught handler,
// which kills the app as Android's does (exit 10).
// --hold-after-oom FILE: the first OutOfMemoryError of the leak is caught,
// "caught OutOfMemoryError" printed, FILE waited for, then the error thrown
// on (as an app whose handler logs it before it dies, only for as long as
// the test says).
// --dump-at-mb N PATH: once N MB have leaked, ART's own heap dump into PATH
// (dalvik.system.VMDebug.dumpHprofData: what `am dumpheap` runs in the app),
// printed "dumped PATH in T ms" (the app stands still for all of it).
import java.io.BufferedReader;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

public class ArtApp {
    static final class Session {
        boolean closed;
        final long id;
        final byte[] buffer;
        Session(long id, int bytes) { this.id = id; this.buffer = new byte[bytes]; }
    }

    static final class SessionCache {
        static final List<Session> CLOSED = new ArrayList<Session>();
    }

    static final class CacheLoader {
        static final List<FileInputStream> OPEN = new ArrayList<FileInputStream>();
        static int openAll(int n) throws IOException {
            for (int i = 0; i < n; i++)
                OPEN.add(new FileInputStream("/dev/null"));
            return n;
        }
    }

    static final class WorkerPool {
        static int startAll(int n) {
            for (int i = 0; i < n; i++) {
                Thread t = new Thread(new Runnable() {
                    public void run() {
                        try { Thread.sleep(Long.MAX_VALUE); } catch (InterruptedException e) { }
                    }
                }, "pool-worker-" + i);
                t.setDaemon(true);
                t.start();
            }
            return n;
        }
    }

    static final class ActivityThread implements Runnable {
        final String fifo;
        ActivityThread(String fifo) { this.fifo = fifo; }
        public void run() {
            while (true) {
                String agent;
                try {
                    BufferedReader r = new BufferedReader(new FileReader(fifo));
                    agent = r.readLine();
                    r.close();
                } catch (IOException e) {
                    return;
                }
                if (agent == null)
                    continue;
                System.out.println("attach-agent " + agent);
                try {
                    dalvik.system.VMDebug.attachAgent(agent, ArtApp.class.getClassLoader());
                } catch (IOException e) {
                    System.out.println("attaching failed: " + e);
                }
            }
        }
    }

    static long pid() throws IOException {
        return Long.parseLong(new File("/proc/self").getCanonicalFile().getName());
    }

    public static void main(String[] args) throws Exception {
        double rate = 0;
        long maxMb = Long.MAX_VALUE, seconds = 600;
        int fds = 0, threads = 0;
        File go = null;
        String fifo = null, dumpPath = null, holdAfterOom = null;
        long dumpAtMb = -1;
        for (int i = 0; i + 1 < args.length; i += 2) {
            String a = args[i], v = args[i + 1];
            if (a.equals("--leak-mb-per-s")) rate = Double.parseDouble(v);
            else if (a.equals("--max-mb")) maxMb = Long.parseLong(v);
            else if (a.equals("--seconds")) seconds = Long.parseLong(v);
            else if (a.equals("--go")) go = new File(v);
            else if (a.equals("--attach-fifo")) fifo = v;
            else if (a.equals("--fds")) fds = Integer.parseInt(v);
            else if (a.equals("--hold-after-oom")) holdAfterOom = v;
            else if (a.equals("--threads")) threads = Integer.parseInt(v);
            else if (a.equals("--dump-at-mb") && i + 2 < args.length) { dumpAtMb = Long.parseLong(v); dumpPath = args[i + 2]; i++; }
            else throw new IllegalArgumentException("unknown option " + a);
        }
        // an exception nobody caught kills the app, as Android's KillApplicationHandler does
        Thread.setDefaultUncaughtExceptionHandler(new Thread.UncaughtExceptionHandler() {
            public void uncaughtException(Thread t, Throwable e) {
                System.out.println("FATAL EXCEPTION: " + t.getName() + ": " + e);
                System.out.flush();
                Runtime.getRuntime().halt(10);
            }
        });
        if (fifo != null) {
            Thread at = new Thread(new ActivityThread(fifo), "ActivityThread");
            at.setDaemon(true);
            at.start();
        }
        System.out.println("ready pid=" + pid());
        System.out.flush();
        while (go != null && !go.exists())
            Thread.sleep(20);
        if (fds > 0) {
            System.out.println("opened " + CacheLoader.openAll(fds));
            System.out.flush();
        }
        if (threads > 0) {
            System.out.println("started " + WorkerPool.startAll(threads));
            System.out.flush();
        }
        long start = System.nanoTime(), leaked = 0, id = 0, lastReport = 0;
        final int sessionBytes = 64 * 1024;
        while ((System.nanoTime() - start) / 1000000000L < seconds) {
            long elapsedMs = (System.nanoTime() - start) / 1000000L;
            long want = (long) (rate * elapsedMs / 1000.0 * 1024 * 1024);
            if (maxMb < (Long.MAX_VALUE >> 20))
                want = Math.min(want, maxMb << 20);
            try {
                while (leaked < want) {
                    Session s = new Session(id++, sessionBytes);
                    s.closed = true;
                    SessionCache.CLOSED.add(s);
                    leaked += sessionBytes;
                }
            } catch (OutOfMemoryError e) {
                if (holdAfterOom == null)
                    throw e;
                System.out.println("caught OutOfMemoryError");
                System.out.flush();
                while (!new File(holdAfterOom).exists())
                    Thread.sleep(20);
                throw e;
            }
            if (dumpPath != null && (leaked >> 20) >= dumpAtMb) {
                long t0 = System.nanoTime();
                dalvik.system.VMDebug.dumpHprofData(dumpPath);
                System.out.println("dumped " + dumpPath + " in " + (System.nanoTime() - t0) / 1000000 + " ms");
                System.out.flush();
                dumpPath = null;
            }
            if (elapsedMs / 1000 != lastReport) {
                lastReport = elapsedMs / 1000;
                System.out.println("leaked_mb=" + (leaked >> 20));
                System.out.flush();
            }
            Thread.sleep(10);
        }
    }
}
