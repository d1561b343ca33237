// A JVM test app with three planted leaks, for `oomscope analyze` tests. Each
// leaked object has a field `destroyed` set to true (the JVM's counterpart of
// Android's Activity.mDestroyed) and is still reachable:
//   1. Screen: destroyed screens kept in a static list (Registry.SCREENS);
//   2. Page: an anonymous inner class of Page runs in a thread, and its
//      this$0 holds the destroyed Page;
//   3. Dialog: a listener registry (static HashMap in EventBus) holds a
//      destroyed Dialog.
// Objects of the same classes that are not destroyed are kept too (they must
// not be reported), and destroyed ones that are no longer referenced are
// garbage (they must not be reported either). Prints "ready pid=N" once built,
// then waits to be killed (at most --seconds, default 600).
//   java tests/java/PlantedLeaks.java
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class PlantedLeaks {
    static final class Screen {
        boolean destroyed;
        final String name;
        final byte[] pixels;
        Screen(String name, int bytes) { this.name = name; this.pixels = new byte[bytes]; }
    }

    static final class Registry {
        static final List<Screen> SCREENS = new ArrayList<>();
    }

    static final class Page {
        boolean destroyed;
        final int[] rows = new int[4096];
        volatile boolean stop;

        Runnable poller() {
            return new Runnable() {
                public void run() {
                    while (!stop) { // uses this$0, so `this` stays a live local
                        try { Thread.sleep(50); } catch (InterruptedException e) { return; }
                    }
                }
            };
        }
    }

    interface Listener { void onEvent(String e); }

    static final class EventBus {
        static final Map<String, Listener> LISTENERS = new HashMap<>();
    }

    static final class Dialog implements Listener {
        boolean destroyed;
        final long[] state = new long[2000];
        public void onEvent(String e) { state[0]++; }
    }

    static final List<Object> KEEP = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        long seconds = 600;
        for (int i = 0; i + 1 < args.length; i += 2)
            if (args[i].equals("--seconds")) seconds = Long.parseLong(args[i + 1]);

        for (int i = 0; i < 5; i++) {
            Screen s = new Screen("screen-" + i, 10_000 + i);
            s.destroyed = i < 3;                  // 3 leaked, 2 live
            Registry.SCREENS.add(s);
        }
        Screen gone = new Screen("gone", 1000);   // destroyed and unreferenced: garbage
        gone.destroyed = true;
        gone = null;

        Page page = new Page();
        page.destroyed = true;
        Thread t = new Thread(page.poller(), "poller");
        t.setDaemon(true);
        t.start();
        page = null;
        KEEP.add(new Page());                     // a live, not destroyed Page

        Dialog d = new Dialog();
        d.destroyed = true;
        EventBus.LISTENERS.put("settings", d);
        EventBus.LISTENERS.put("main", new Dialog()); // not destroyed
        d = null; // held by the registry only

        System.gc();
        System.out.println("ready pid=" + ProcessHandle.current().pid());
        System.out.flush();
        Thread.sleep(seconds * 1000);
    }
}
