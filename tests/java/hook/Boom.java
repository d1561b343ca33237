// A Throwable with the constructor shapes the shim's class file rewriter
// meets (tests/bats/shim_oomhook.bats): two straight-line ones it hooks,
// one with a branch it leaves as it is.
public class Boom extends RuntimeException {
    public Boom() { super(); }
    public Boom(String message) { super(message); }
    public Boom(int n) { super(n > 0 ? "positive" : "not positive"); }
}
