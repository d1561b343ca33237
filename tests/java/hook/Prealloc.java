// An app that keeps an OutOfMemoryError made in a static initializer (as
// some libraries preallocate one for when memory is short) and never throws
// it, then makes one in a method (never thrown either): the shim's hook must
// tell the second, not the first (tests/bats/shim_oomhook.bats). Prints
// "ready", waits for GO, then "done" and exits 0.
//   java Prealloc.java GO
public class Prealloc {
    static final class Holder {
        static final OutOfMemoryError KEPT = new OutOfMemoryError("kept for later");
    }

    static OutOfMemoryError makeOne() {
        return new OutOfMemoryError("made now");
    }

    public static void main(String[] args) throws Exception {
        System.out.println("ready");
        System.out.flush();
        java.io.File go = new java.io.File(args[0]);
        while (!go.exists())
            Thread.sleep(20);
        System.out.println("kept: " + Holder.KEPT.getMessage() + ", made: " + makeOne().getMessage());
        System.out.println("done");
    }
}
