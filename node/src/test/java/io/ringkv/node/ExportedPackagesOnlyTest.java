package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.not;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.constantpool.ClassEntry;
import java.lang.classfile.constantpool.PoolEntry;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The class-path modules (store, cluster, ops, node) see every package of ringkv's Java modules
 * (http-core, net, http-client, http-server), the unexported {@code internal} ones included, since
 * a modular jar on the class path hides nothing. So that the modules' boundaries hold for them
 * too, this test reads the compiled classes of every class-path module of ours (this one's
 * {@code target/classes} and the upstream ones on its class path) and fails on any class they
 * name in a package of one of our Java modules that the module does not export.
 *
 * <p>It reads constant pools, which name every class the code links against (calls, fields,
 * casts, annotations, signatures of lambdas); it compiles nothing.
 */
class ExportedPackagesOnlyTest {
    private static final String OURS = "io/ringkv/";

    @Test
    void classPathModulesUseOnlyPackagesRingkvModulesExport() throws IOException {
        Map<String, ModuleDescriptor> moduleOfPackage = new HashMap<>();
        List<Path> classPathModules = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path path = Path.of(entry).toAbsolutePath();
            ModuleDescriptor descriptor = explicitModule(path);
            if (descriptor != null && descriptor.name().startsWith("io.ringkv.")) {
                descriptor.packages().forEach(pkg -> moduleOfPackage.put(pkg, descriptor));
            } else if (descriptor == null && holdsOurClasses(path) && !path.endsWith("test-classes")) {
                classPathModules.add(path);
            }
        }
        assertThat("ringkv's Java modules on the class path", moduleOfPackage.keySet(), not(empty()));
        assertThat("our class-path modules' classes", classPathModules, not(empty()));

        Set<String> violations = new TreeSet<>();
        for (Path entry : classPathModules) {
            try (FileSystem jar = Files.isDirectory(entry) ? null : FileSystems.newFileSystem(entry)) {
                Path root = jar == null ? entry : jar.getPath("/");
                for (Path classFile : classFiles(root)) {
                    ClassModel model = ClassFile.of().parse(Files.readAllBytes(classFile));
                    for (PoolEntry pooled : model.constantPool()) {
                        if (pooled instanceof ClassEntry named && named.asInternalName().startsWith(OURS)) {
                            String internal = named.asInternalName();
                            String pkg = internal.substring(0, internal.lastIndexOf('/')).replace('/', '.');
                            ModuleDescriptor owner = moduleOfPackage.get(pkg);
                            if (owner != null && owner.exports().stream().noneMatch(e -> e.source().equals(pkg) && !e.isQualified())) {
                                violations.add(model.thisClass().asInternalName() + " uses " + internal
                                        + " (package " + pkg + " is not exported by " + owner.name() + ")");
                            }
                        }
                    }
                }
            }
        }
        assertThat(violations, empty());
    }

    /** A directory or jar with classes under {@code io/ringkv/} (this module's, or an upstream one of ours). */
    private static boolean holdsOurClasses(Path entry) {
        if (Files.isDirectory(entry)) {
            return Files.isDirectory(entry.resolve("io").resolve("ringkv"));
        }
        if (!Files.isRegularFile(entry) || !entry.toString().endsWith(".jar")) {
            return false;
        }
        try (FileSystem jar = FileSystems.newFileSystem(entry)) {
            return Files.isDirectory(jar.getPath("/io/ringkv"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Path> classFiles(Path root) {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(f -> f.toString().endsWith(".class") && !f.endsWith("module-info.class")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The descriptor of a class-path entry that is an explicit module (it has a module-info), else null. */
    private static ModuleDescriptor explicitModule(Path entry) {
        if (Files.isDirectory(entry) && !Files.exists(entry.resolve("module-info.class"))) {
            return null; // ModuleFinder would read a plain directory as a directory of modules
        }
        try {
            Set<ModuleReference> found = ModuleFinder.of(entry).findAll();
            if (found.size() != 1) {
                return null;
            }
            ModuleDescriptor descriptor = found.iterator().next().descriptor();
            return descriptor.isAutomatic() ? null : descriptor;
        } catch (RuntimeException unreadable) {
            return null; // not a module (a jar with an invalid name, a split descriptor): it stays on the class path
        }
    }
}
