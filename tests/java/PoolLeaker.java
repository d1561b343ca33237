// The other ways a JVM runs out (issue 36), one leak per mode, at --mb-per-s
// MB a second until the pool is exhausted and the OutOfMemoryError ends the
// app (exit code 1, uncaught):
//   direct     ByteBuffer.allocateDirect(1 MB) kept in PooledBuffers.POOL (a
//              pooled-buffer leak; run with -XX:MaxDirectMemorySize=96m):
//              "Cannot reserve ... bytes of direct buffer memory", thrown by
//              java.nio.Bits
//   metaspace  a class loader a step, each defining a proxy class and a class
//              named PluginImpl (one name in every loader: MAT's duplicate
//              classes), kept in PluginRegistry.LOADERS (run with
//              -XX:MaxMetaspaceSize=48m)
//   humongous  256 KB arrays kept in BlobCache.BLOBS (on Shenandoah a 256 MB
//              heap runs out with half of it "used")
// Prints "ready pid=N", then "leaked_mb=M" each second. With --go FILE the
// leak starts once FILE exists. With --hold-at-mb N --release FILE it stops
// once the pool holds N MB (as the JVM counts it: the direct buffer pool,
// Metaspace, the heap), prints "holding mb=M", and goes on to the error
// once FILE exists: a test sees the pool near its limit for as long as it
// needs, then lets the app run out.
//   java -XX:MaxDirectMemorySize=96m tests/java/PoolLeaker.java direct --mb-per-s 20
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

public class PoolLeaker {
    static final class PooledBuffers {
        static final List<ByteBuffer> POOL = new ArrayList<>();
    }

    static final class PluginRegistry {
        static final List<ClassLoader> LOADERS = new ArrayList<>();
        static final List<Object> PLUGINS = new ArrayList<>();
    }

    static final class PluginLoader extends ClassLoader {
        PluginLoader() { super(PoolLeaker.class.getClassLoader()); }

        Class<?> definePlugin() { return defineClass("PluginImpl", PLUGIN_IMPL, 0, PLUGIN_IMPL.length); }
    }

    // "public class PluginImpl {}" as a class file: no fields, no methods
    static final byte[] PLUGIN_IMPL = emptyClass("PluginImpl");

    static byte[] emptyClass(String name) {
        try {
            java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
            java.io.DataOutputStream d = new java.io.DataOutputStream(b);
            d.writeInt(0xCAFEBABE);
            d.writeShort(0);
            d.writeShort(52); // Java 8's format
            d.writeShort(5);  // four constants
            d.writeByte(1); d.writeUTF(name);               // #1 Utf8
            d.writeByte(7); d.writeShort(1);                // #2 Class #1
            d.writeByte(1); d.writeUTF("java/lang/Object"); // #3 Utf8
            d.writeByte(7); d.writeShort(3);                // #4 Class #3
            d.writeShort(0x21); // public, super
            d.writeShort(2);    // this
            d.writeShort(4);    // super
            d.writeShort(0); d.writeShort(0); d.writeShort(0); d.writeShort(0); // interfaces, fields, methods, attributes
            return b.toByteArray();
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    static final class BlobCache {
        static final List<byte[]> BLOBS = new ArrayList<>();
    }

    public interface Plugin { void run(); }

    static volatile Object sink;

    // one step of the mode's leak; returns the bytes it holds (about)
    static long step(String mode) {
        switch (mode) {
            case "direct":
                PooledBuffers.POOL.add(ByteBuffer.allocateDirect(1 << 20));
                return 1 << 20;
            case "metaspace": {
                PluginLoader l = new PluginLoader();
                PluginRegistry.LOADERS.add(l);
                l.definePlugin(); // held by its loader alone: the paths to the loaders stay the proxies'
                PluginRegistry.PLUGINS.add(Proxy.newProxyInstance(l, new Class<?>[] {Plugin.class, Runnable.class},
                    (p, m, a) -> null));
                return 4096; // about what a loader and its proxy class take of metaspace
            }
            case "humongous":
                BlobCache.BLOBS.add(new byte[256 << 10]);
                return 256 << 10;
            default:
                throw new IllegalArgumentException("unknown mode " + mode);
        }
    }

    // what the JVM counts in the mode's pool, in bytes
    static long poolUsed(String mode) {
        switch (mode) {
            case "direct":
                for (java.lang.management.BufferPoolMXBean b :
                         java.lang.management.ManagementFactory.getPlatformMXBeans(
                             java.lang.management.BufferPoolMXBean.class))
                    if (b.getName().equals("direct"))
                        return b.getMemoryUsed();
                return 0;
            case "metaspace":
                for (java.lang.management.MemoryPoolMXBean p :
                         java.lang.management.ManagementFactory.getMemoryPoolMXBeans())
                    if (p.getName().equals("Metaspace"))
                        return p.getUsage().getCommitted(); // what MaxMetaspaceSize counts
                return 0;
            default:
                return Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
        }
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        double rate = 20;
        long holdAt = -1;
        java.io.File go = null, release = null;
        for (int i = 1; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--mb-per-s": rate = Double.parseDouble(args[i + 1]); break;
                case "--go": go = new java.io.File(args[i + 1]); break;
                case "--hold-at-mb": holdAt = Long.parseLong(args[i + 1]) << 20; break;
                case "--release": release = new java.io.File(args[i + 1]); break;
                default: throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        poolUsed(mode); // the management classes loaded before the leak
        System.out.println("ready pid=" + ProcessHandle.current().pid());
        System.out.flush();
        while (go != null && !go.exists())
            Thread.sleep(20);
        long bytes = 0, start = System.nanoTime(), lastSay = start;
        for (;;) {
            // paced: the bytes allowed by now at the rate
            double allowed = rate * (1 << 20) * (System.nanoTime() - start) / 1e9;
            while (bytes < allowed && !(holdAt > 0 && poolUsed(mode) >= holdAt))
                bytes += step(mode);
            if (holdAt > 0 && poolUsed(mode) >= holdAt) {
                System.out.println("holding mb=" + (poolUsed(mode) >> 20));
                System.out.flush();
                // humongous: garbage at full speed while it holds (the
                // collector runs back to back over a heap that stays full)
                for (int n = 0; release != null && !release.exists(); n++) {
                    if (mode.equals("humongous"))
                        sink = new byte[256 << 10];
                    else
                        Thread.sleep(20);
                }
                holdAt = -1;
                start = System.nanoTime() - (long) (bytes / (rate * (1 << 20)) * 1e9); // no catching up
            }
            long now = System.nanoTime();
            if (now - lastSay >= 1_000_000_000L) {
                System.out.println("leaked_mb=" + (bytes >> 20));
                System.out.flush();
                lastSay = now;
            }
            Thread.sleep(10);
        }
    }
}
