package io.ringkv.http.server;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Runs a command-line client (curl, nghttp, h2load) found on the PATH; a test is skipped when it is missing. Test helper. */
final class ExternalTool {
    /** A run that did not end: a test failure, not a threshold (the requests are a handful). */
    static final long RUN_LIMIT_SECONDS = 60;

    record Run(int exitCode, String output) {
    }

    private ExternalTool() {
    }

    static Optional<Path> find(String name) {
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir, name);
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** Runs {@code name args...}; skips the calling test when {@code name} is not installed. */
    static Run run(String name, String... args) throws IOException, InterruptedException {
        Optional<Path> tool = find(name);
        assumeTrue(tool.isPresent(), name + " is not installed (not on the PATH): this interop check is skipped");
        List<String> command = new ArrayList<>();
        command.add(tool.get().toString());
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(RUN_LIMIT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(command + " did not end");
        }
        return new Run(process.exitValue(), new String(output, StandardCharsets.UTF_8));
    }
}
