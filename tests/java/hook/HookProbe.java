import java.nio.file.Files;
import java.nio.file.Path;

// Loads a rewritten Boom.class (classfile_hook's output) under bytecode
// verification, builds one of each constructor and prints what the hook
// saw: "made Boom: <message>" per call, then "built 3".
//   java -Xverify:all HookProbe.java BOOM_CLASS_FILE
public class HookProbe {
    public static final class Hook {
        public static void made(Throwable t) {
            System.out.println("made " + t.getClass().getName() + ": " + t.getMessage());
        }
    }

    public static void main(String[] args) throws Exception {
        byte[] bytes = Files.readAllBytes(Path.of(args[0]));
        ClassLoader loader = new ClassLoader(HookProbe.class.getClassLoader()) {
            @Override
            protected Class<?> findClass(String name) throws ClassNotFoundException {
                if (!name.equals("Boom"))
                    throw new ClassNotFoundException(name);
                return defineClass(name, bytes, 0, bytes.length);
            }
        };
        Class<?> boom = loader.loadClass("Boom");
        boom.getConstructor().newInstance();
        boom.getConstructor(String.class).newInstance("with a message");
        boom.getConstructor(int.class).newInstance(3);
        System.out.println("built 3");
    }
}
