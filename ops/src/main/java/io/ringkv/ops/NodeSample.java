package io.ringkv.ops;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * One node's {@code /v0/status} and {@code /metrics}, read at one moment by {@code ringkv status}.
 * A node that did not answer has status 0 and no metrics.
 *
 * @param metricsStatus the metrics endpoint's HTTP status (401 or 403: the token is missing or
 *                      lacks the admin scope), 0 when it did not answer
 * @param status      the status endpoint's HTTP status, 0 when the node did not answer
 * @param statusBody  its JSON body, or the error when it did not answer
 * @param metrics     the parsed metrics, or null
 * @param atNanos     when the metrics were read
 */
public record NodeSample(String url, int status, String statusBody, PrometheusText metrics, long atNanos, int metricsStatus) {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    /** As the dashboard builds one: {@code metrics} null exactly when they could not be read. */
    public NodeSample(String url, int status, String statusBody, PrometheusText metrics, long atNanos) {
        this(url, status, statusBody, metrics, atNanos, metrics == null ? 0 : 200);
    }

    /**
     * @param authorization the {@code Authorization} field to send (a token with the admin scope,
     *                      for nodes that check tokens), or null
     */
    static NodeSample read(HttpClient http, String url, String authorization) throws InterruptedException {
        int status;
        String body;
        try {
            HttpResponse<String> response = http.send(get(url + "/v0/status", authorization), HttpResponse.BodyHandlers.ofString());
            status = response.statusCode();
            body = response.body();
        } catch (IOException e) {
            return new NodeSample(url, 0, "unreachable: " + e, null, System.nanoTime());
        }
        PrometheusText metrics = null;
        long at = System.nanoTime();
        int metricsStatus = 0;
        try {
            HttpResponse<String> response = http.send(get(url + "/metrics", authorization), HttpResponse.BodyHandlers.ofString());
            at = System.nanoTime();
            metricsStatus = response.statusCode();
            if (response.statusCode() == 200) {
                metrics = PrometheusText.parse(response.body());
            }
        } catch (IOException e) {
            // answered its status but not its metrics: the row shows no rates
        }
        return new NodeSample(url, status, body, metrics, at, metricsStatus);
    }

    private static HttpRequest get(String uri, String authorization) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(uri)).timeout(TIMEOUT).GET();
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return request.build();
    }

    public boolean answered() {
        return status != 0;
    }

    /** up when it serves (200), else the state its status names (starting, stopping), or down. */
    public String state() {
        if (status == 200) {
            return "up";
        }
        return answered() ? JsonText.stringField(statusBody, "state").orElse("status " + status) : "down";
    }

    public Optional<Long> uptimeSeconds() {
        return answered() ? JsonText.numberField(statusBody, "uptimeSeconds").map(Double::longValue) : Optional.empty();
    }

    /** The node's id as it names itself (its URL in the cluster list), else the URL it was read at. */
    String id() {
        return answered() ? JsonText.stringField(statusBody, "node").orElse(url) : url;
    }
}
