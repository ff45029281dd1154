package io.ringkv.ops.chaos;

import io.ringkv.ops.PrometheusText;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the hinted-handoff counters of some nodes' {@code /metrics} once a second and keeps the
 * sums over those nodes: hints queued (all targets), stored, replayed and dropped since start, and
 * anti-entropy rounds finished (which must stay 0 where only hints are to do the work). A node
 * that does not answer in time is left out of that second's sample, which is then marked partial.
 *
 * <p>Threading: {@link #start} and {@link #close} from one thread; sampling on a thread of its
 * own; {@link #samples} from any thread.
 */
final class HintSampler implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HintSampler.class);
    private static final Duration SCRAPE_TIMEOUT = Duration.ofMillis(900);

    /**
     * One second's reading, summed over the sampled nodes.
     *
     * @param atMillis since the sampler's origin
     * @param partial  some node did not answer: the sums lack its share
     */
    record Sample(long atMillis, long queued, long stored, long replayed, long dropped, long antiEntropyRounds,
                  boolean partial) {
    }

    private final List<String> nodes;
    private final long originNanos;
    private final List<Sample> samples = new CopyOnWriteArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(SCRAPE_TIMEOUT).build();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "handoff-hint-sampler");
        thread.setDaemon(true);
        return thread;
    });

    /** @param originNanos the time samples are counted from ({@link System#nanoTime()}) */
    HintSampler(List<String> nodes, long originNanos) {
        this.nodes = List.copyOf(nodes);
        this.originNanos = originNanos;
    }

    void start() {
        timer.scheduleAtFixedRate(this::sample, 0, 1, TimeUnit.SECONDS);
    }

    List<Sample> samples() {
        return List.copyOf(samples);
    }

    /** The latest sample, or an empty all-zero partial one before the first. */
    Sample latest() {
        return samples.isEmpty() ? new Sample(0, 0, 0, 0, 0, 0, true) : samples.getLast();
    }

    private void sample() {
        long at = (System.nanoTime() - originNanos) / 1_000_000;
        List<PrometheusText> read = new ArrayList<>();
        for (String node : nodes) {
            try {
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(node + "/metrics"))
                        .timeout(SCRAPE_TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200) {
                    read.add(PrometheusText.parse(response.body()));
                }
            } catch (IOException e) {
                LOG.debug("no metrics from {}: {}", node, e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        samples.add(new Sample(at, sum(read, "ringkv_hints_queued"), sum(read, "ringkv_hints_stored_total"),
                sum(read, "ringkv_hints_replayed_total"), sum(read, "ringkv_hints_dropped_total"),
                sum(read, "ringkv_anti_entropy_rounds_total"), read.size() < nodes.size()));
    }

    private static long sum(List<PrometheusText> texts, String name) {
        double total = 0;
        for (PrometheusText text : texts) {
            total += text.sum(name, sample -> true);
        }
        return Math.round(total);
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        http.close();
    }
}
