package io.ringkv.node;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A well-behaved client beside an attack: one HTTP/1.1 connection (the JDK's client) reading back
 * a value it wrote, about fifty times a second, recording every answer that is not that value.
 * A test asserts it saw no failure and got answers while the attack ran and after.
 */
final class Bystander implements AutoCloseable {
    private static final String KEY = "bystander";
    private static final String VALUE = "calm";
    /** Bounds each request: an answer slower than this counts as a failure, not a wait for ever. */
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final URI entity;
    private final AtomicInteger answers = new AtomicInteger();
    private final List<String> failures = Collections.synchronizedList(new ArrayList<>());
    private final Thread thread;
    private volatile boolean running = true;

    Bystander(int port) throws Exception {
        entity = URI.create("http://127.0.0.1:" + port + "/v0/entity?id=" + KEY);
        HttpResponse<String> put = http.send(HttpRequest.newBuilder(entity).timeout(REQUEST_TIMEOUT)
                .PUT(HttpRequest.BodyPublishers.ofString(VALUE)).build(), HttpResponse.BodyHandlers.ofString());
        if (put.statusCode() / 100 != 2) {
            throw new IllegalStateException("the bystander's PUT got " + put.statusCode() + ": " + put.body());
        }
        thread = new Thread(this::run, "bystander");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        HttpRequest get = HttpRequest.newBuilder(entity).timeout(REQUEST_TIMEOUT).GET().build();
        while (running) {
            try {
                HttpResponse<String> response = http.send(get, HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200 && response.body().equals(VALUE)) {
                    answers.incrementAndGet();
                } else {
                    failures.add("status " + response.statusCode() + ": " + response.body());
                }
                Thread.sleep(20);
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                if (running) {
                    failures.add(e.toString());
                }
            }
        }
    }

    /** Answers with the right value so far. */
    int answers() {
        return answers.get();
    }

    /** Copies of what went wrong so far: a status other than 200, another body, a timeout, a refused connection. */
    List<String> failures() {
        synchronized (failures) {
            return List.copyOf(failures);
        }
    }

    /** Waits, at most {@code within}, until {@code more} answers came after the call; true if they did. */
    boolean awaitMoreAnswers(int more, Duration within) throws InterruptedException {
        int target = answers.get() + more;
        long end = System.nanoTime() + within.toNanos();
        while (answers.get() < target && System.nanoTime() < end) {
            Thread.sleep(20);
        }
        return answers.get() >= target;
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(REQUEST_TIMEOUT.toMillis() + 1_000);
        http.close();
    }

    @Override
    public String toString() {
        return answers() + " answers, failures " + failures();
    }
}
