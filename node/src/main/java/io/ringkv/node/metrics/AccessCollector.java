package io.ringkv.node.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.ringkv.node.access.AccessEntries;
import io.ringkv.node.access.Grant;
import io.ringkv.node.access.TokenRegistry;
import java.util.Map;
import java.util.TreeMap;

/**
 * The token file in use ({@code serve --auth-file}), read once per scrape: how many token and
 * certificate lines it holds, and when each line with an {@code expires=} stops being accepted,
 * as Unix seconds, so that an alert can fire before a credential lapses
 * ({@code ringkv_access_expiry_timestamp_seconds - time() < 7 * 86400}). Names only, never hashes.
 *
 * <p>Threading: stateless; {@link #collect} on the scraping thread.
 */
final class AccessCollector implements MultiCollector {
    private final TokenRegistry tokens;

    AccessCollector(TokenRegistry tokens) {
        this.tokens = tokens;
    }

    @Override
    public MetricSnapshots collect() {
        AccessEntries entries = tokens.entries();
        Map<String, Double> expiries = new TreeMap<>();
        for (Grant grant : entries.grants()) {
            if (grant.expiresAt() != null) {
                expiries.put(grant.name(), grant.expiresAt().toEpochMilli() / 1000.0);
            }
        }
        return new Families()
                .gauge("ringkv_access_entries", "Lines of the token file in use, by kind (token, certificate), expired ones included",
                        "kind", Map.of("token", entries.tokens().size(), "certificate", entries.certificates().size()))
                .gauge("ringkv_access_expiry_timestamp_seconds", "When each token or certificate line with an expires= "
                        + "stops being accepted, in Unix seconds, by its name", "name", expiries)
                .build();
    }
}
