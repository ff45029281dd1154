package io.ringkv.http.client;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * curl as a reference client for differential tests: one process per request, response head from
 * {@code -D -} (stdout), body into a file. Always on 127.0.0.1 ({@code --resolve} pins
 * {@code localhost}), no proxy, no {@code .curlrc}, bounded by {@code --max-time} and a process
 * wait. Test scope only.
 */
final class Curl {
    static final long MAX_SECONDS = 60;
    private static final AtomicInteger RUNS = new AtomicInteger();

    /** How curl is told which protocol to speak. */
    enum Protocol {
        /** HTTP/1.1 only. */
        HTTP_1_1("--http1.1"),
        /** h2 offered by ALPN over TLS. */
        H2_ALPN("--http2"),
        /** HTTP/2 without Upgrade on cleartext. */
        H2C_PRIOR_KNOWLEDGE("--http2-prior-knowledge");

        final String option;

        Protocol(String option) {
            this.option = option;
        }
    }

    /** One answer: the final status, the protocol version of its status line, and the body bytes. */
    record Result(int status, HttpClient.Version version, byte[] body) {
    }

    private final Path binary;
    private final Path work;

    private Curl(Path binary, Path work) {
        this.binary = binary;
        this.work = work;
    }

    /** curl from the PATH when present and built with HTTP/2 (nghttp2), writing its files under {@code work}. */
    static Optional<Curl> find(Path work) throws IOException, InterruptedException {
        Optional<Path> binary = Executables.onPath("curl");
        if (binary.isEmpty()) {
            return Optional.empty();
        }
        Process version = new ProcessBuilder(binary.get().toString(), "--version").redirectErrorStream(true).start();
        String features = new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!version.waitFor(MAX_SECONDS, TimeUnit.SECONDS) || !features.contains("HTTP2")) {
            version.destroyForcibly();
            return Optional.empty();
        }
        return Optional.of(new Curl(binary.get(), work));
    }

    /**
     * Fetches {@code target}; with {@code upload} non-null, POSTs that file's bytes. {@code -k}: the
     * test certificate is self-signed (our client trusts it explicitly).
     */
    Result fetch(URI target, Protocol protocol, Path upload) throws IOException, InterruptedException {
        int run = RUNS.incrementAndGet();
        Path body = work.resolve("curl-body-" + run);
        Path head = work.resolve("curl-head-" + run);
        Path errors = work.resolve("curl-stderr-" + run);
        List<String> command = new ArrayList<>(List.of(binary.toString(), "-q", "--silent", "--show-error",
                "--noproxy", "*", "--max-time", Long.toString(MAX_SECONDS), protocol.option, "-k",
                "-D", "-", "-o", body.toString()));
        if (target.getHost().equals("localhost")) {
            command.addAll(List.of("--resolve", "localhost:" + target.getPort() + ":127.0.0.1"));
        }
        if (upload != null) {
            command.addAll(List.of("--data-binary", "@" + upload, "-H", "Content-Type: application/octet-stream"));
        }
        command.add(target.toString());
        Process process = new ProcessBuilder(command).redirectOutput(head.toFile()).redirectError(errors.toFile()).start();
        if (!process.waitFor(MAX_SECONDS + 10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException("curl did not finish within " + (MAX_SECONDS + 10) + " s: " + command);
        }
        if (process.exitValue() != 0) {
            throw new IOException("curl exited with " + process.exitValue() + ": " + Files.readString(errors));
        }
        return parse(Files.readString(head, StandardCharsets.ISO_8859_1),
                Files.exists(body) ? Files.readAllBytes(body) : new byte[0]);
    }

    /** The last status line wins: interim (1xx) heads come first in {@code -D} output. */
    private static Result parse(String heads, byte[] body) throws IOException {
        String statusLine = null;
        for (String line : heads.split("\r\n")) {
            if (line.startsWith("HTTP/")) {
                statusLine = line;
            }
        }
        if (statusLine == null) {
            throw new IOException("no status line in curl's output: " + heads);
        }
        String[] parts = statusLine.split(" ", 3);
        HttpClient.Version version = switch (parts[0]) {
            case "HTTP/2" -> HttpClient.Version.HTTP_2;
            case "HTTP/1.1" -> HttpClient.Version.HTTP_1_1;
            default -> throw new IOException("unexpected protocol in " + statusLine);
        };
        return new Result(Integer.parseInt(parts[1]), version, body);
    }
}
