package io.ringkv.ops;

import java.io.PrintWriter;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ringkv status}: the cluster as one node sees it, one row per node, like
 * {@code nodetool status}. The node given by {@code --node} names its peers and whether it sees
 * them up; every node is then asked for its own {@code /v0/status} and {@code /metrics} twice,
 * {@code --interval} apart, for its request rate and p99 over that interval. Exits non-zero when
 * any node is not up, so scripts can use it.
 */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = "Print the cluster as one node sees it: state, uptime, requests/s, p99 and disk of every node, "
                + "then the cluster metadata (epoch, leader, each member's state). Exit code 1 when any node is down (or starting, or stopping).")
public final class StatusCommand implements Callable<Integer> {

    /** Exit code when a node is not up or the asked node cannot be reached. */
    public static final int EXIT_NOT_ALL_UP = 1;
    private static final Pattern PEER = Pattern.compile(
            "\\{\"node\":\"((?:[^\"\\\\]|\\\\.)*)\",\"state\":\"(\\w+)\",\"since\":\"[^\"]*\",\"forSeconds\":(\\d+)");

    @Spec
    CommandSpec spec;

    @Option(names = "--node", defaultValue = "http://127.0.0.1:8080", paramLabel = "URL",
            description = "The node whose view to print (default: ${DEFAULT-VALUE}).")
    String node;

    @Option(names = "--interval", defaultValue = "PT1S", paramLabel = "DURATION",
            description = "Time between the two reads of each node's metrics that the rates are measured over, "
                    + "ISO-8601 (default: ${DEFAULT-VALUE}).")
    Duration interval;

    @Mixin
    ClientTlsOptions tls;

    @Option(names = "--token", paramLabel = "TOKEN", defaultValue = "${env:" + TokenOption.ENVIRONMENT_VARIABLE + "}",
            description = TokenOption.DESCRIPTION)
    String token;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        String seedUrl = node.endsWith("/") ? node.substring(0, node.length() - 1) : node;
        HttpClient.Builder builder = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2));
        String authorization = TokenOption.authorization(token, spec.commandLine());
        try (HttpClient http = tls.apply(builder).build()) {
            NodeSample seed = NodeSample.read(http, seedUrl, authorization);
            if (!seed.answered()) {
                spec.commandLine().getErr().println("ringkv status: cannot reach " + seedUrl + " (" + seed.statusBody() + ")");
                return EXIT_NOT_ALL_UP;
            }
            Map<String, String> seenBySeed = peersSeenBy(seed);
            List<String> urls = new ArrayList<>();
            urls.add(seed.id());
            urls.addAll(seenBySeed.keySet());
            List<NodeSample> first = readAll(http, urls, authorization);
            Thread.sleep(interval);
            List<NodeSample> second = readAll(http, urls, authorization);
            refusedMetrics(second);
            StatusTable table = new StatusTable();
            boolean allUp = true;
            for (int i = 0; i < urls.size(); i++) {
                NodeSample now = second.get(i);
                allUp &= now.state().equals("up");
                table.row(now, first.get(i), i == 0 ? "self" : seenBySeed.get(urls.get(i)));
            }
            table.print(out, seed.id());
            MetadataTable.parse(second.getFirst().answered() ? second.getFirst().statusBody() : seed.statusBody())
                    .ifPresent(metadata -> metadata.print(out));
            out.flush();
            return allUp ? 0 : EXIT_NOT_ALL_UP;
        }
    }

    private static List<NodeSample> readAll(HttpClient http, List<String> urls, String authorization) throws InterruptedException {
        List<NodeSample> samples = new ArrayList<>(urls.size());
        for (String url : urls) {
            samples.add(NodeSample.read(http, url, authorization));
        }
        return samples;
    }

    /** Says once why rates are missing when nodes check tokens and this one had none, or one without admin. */
    private void refusedMetrics(List<NodeSample> samples) {
        for (NodeSample sample : samples) {
            if (sample.metricsStatus() == 401 || sample.metricsStatus() == 403) {
                spec.commandLine().getErr().println("ringkv status: " + sample.url() + "/metrics answered "
                        + sample.metricsStatus() + ", so no rates are shown: pass --token (or set $"
                        + TokenOption.ENVIRONMENT_VARIABLE + ") with a token that has the admin scope");
                spec.commandLine().getErr().flush();
                return;
            }
        }
    }

    /** The peers the seed lists, in order, each with "up 2m10s" or the like. */
    private static Map<String, String> peersSeenBy(NodeSample seed) {
        Map<String, String> peers = new LinkedHashMap<>();
        String body = seed.statusBody();
        int start = body.indexOf("\"peers\":[");
        if (start < 0) {
            return peers;
        }
        Matcher m = PEER.matcher(body).region(start, body.length());
        while (m.find()) {
            peers.put(m.group(1), m.group(2).toLowerCase(Locale.ROOT) + " " + StatusTable.duration(Long.parseLong(m.group(3))));
        }
        return peers;
    }
}
