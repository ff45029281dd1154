package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;

import java.io.File;
import java.io.IOException;
import java.io.ByteArrayOutputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * This module is compiled on the class path, where every package of ringkv's Java modules
 * (http-core, net, http-client, http-server) is visible, the unexported {@code internal} ones
 * included. So that their boundaries hold here too, this test compiles the module's main code
 * once more with those modules on the module path, where javac refuses a package a module does
 * not export, and fails on the first such use.
 */
class ExportedPackagesOnlyTest {
    private static final String RINGKV = "io.ringkv.";

    @Test
    void mainCodeUsesOnlyPackagesRingkvModulesExport(@TempDir Path out) throws IOException {
        Path own = Path.of("target", "classes").toAbsolutePath();
        Path ownTests = Path.of("target", "test-classes").toAbsolutePath();
        Map<String, Path> modules = new LinkedHashMap<>();
        List<Path> classPath = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path path = Path.of(entry).toAbsolutePath();
            if (path.equals(own) || path.equals(ownTests) || !Files.exists(path)) {
                continue;
            }
            ModuleDescriptor descriptor = explicitModule(path);
            if (descriptor != null) {
                modules.put(descriptor.name(), path);
            } else {
                classPath.add(path);
            }
        }
        // Only ringkv's modules and what they require go on the module path; every other library
        // stays where the real build puts it.
        Set<String> wanted = new HashSet<>();
        modules.keySet().stream().filter(name -> name.startsWith(RINGKV)).forEach(name -> require(name, modules, wanted));
        modules.forEach((name, path) -> {
            if (!wanted.contains(name)) {
                classPath.add(path);
            }
        });
        List<String> sources;
        try (Stream<Path> files = Files.walk(Path.of("src", "main", "java"))) {
            sources = files.filter(f -> f.toString().endsWith(".java")).map(Path::toString).sorted().toList();
        }
        List<String> args = new ArrayList<>(List.of(
                "-d", out.toString(), "-proc:none", "-nowarn", "-Xlint:none", "-implicit:none",
                "--module-path", join(wanted.stream().map(modules::get).toList()),
                "--add-modules", String.join(",", wanted),
                "-cp", join(classPath)));
        args.addAll(sources);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        int status = javac.run(null, output, output, args.toArray(String[]::new));
        String diagnostics = output.toString(StandardCharsets.UTF_8);
        List<String> errors = diagnostics.lines().filter(line -> line.contains("error:")).toList();
        assertThat("javac with ringkv's modules on the module path (status " + status + "):\n" + diagnostics,
                errors, empty());
    }

    private static void require(String name, Map<String, Path> modules, Set<String> wanted) {
        if (!modules.containsKey(name) || !wanted.add(name)) {
            return;
        }
        ModuleDescriptor descriptor = explicitModule(modules.get(name));
        descriptor.requires().forEach(r -> require(r.name(), modules, wanted));
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

    private static String join(List<Path> paths) {
        return String.join(File.pathSeparator, paths.stream().map(Path::toString).toList());
    }
}
