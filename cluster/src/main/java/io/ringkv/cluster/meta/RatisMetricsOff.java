package io.ringkv.cluster.meta;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.ratis.metrics.LongCounter;
import org.apache.ratis.metrics.MetricRegistries;
import org.apache.ratis.metrics.MetricRegistryInfo;
import org.apache.ratis.metrics.RatisMetricRegistry;
import org.apache.ratis.metrics.Timekeeper;
import org.apache.ratis.util.TimeDuration;

/**
 * Ratis's metrics, switched off. Ratis needs some {@link MetricRegistries} (found by
 * {@link java.util.ServiceLoader}, see META-INF/services); its default one times every append and
 * vote with Dropwizard timers that nobody here reads. The node reports what an operator needs of
 * the metadata group itself ({@code ringkv_metadata_*}), so Ratis's registries record nothing.
 *
 * <p>Threading: thread-safe (a concurrent map of registries, each stateless).
 */
public final class RatisMetricsOff extends MetricRegistries {

    private static final Timekeeper.Context STOPPED = () -> 0L;
    private static final LongCounter NO_COUNT = new LongCounter() {
        @Override
        public void inc(long n) {
        }

        @Override
        public void dec(long n) {
        }

        @Override
        public long getCount() {
            return 0;
        }
    };

    private final Map<MetricRegistryInfo, RatisMetricRegistry> registries = new ConcurrentHashMap<>();

    /** For {@link java.util.ServiceLoader}. */
    public RatisMetricsOff() {
    }

    @Override
    public void clear() {
        registries.clear();
    }

    @Override
    public RatisMetricRegistry create(MetricRegistryInfo info) {
        return registries.computeIfAbsent(info, Registry::new);
    }

    @Override
    public boolean remove(MetricRegistryInfo key) {
        return registries.remove(key) != null;
    }

    @Override
    public Optional<RatisMetricRegistry> get(MetricRegistryInfo info) {
        return Optional.ofNullable(registries.get(info));
    }

    @Override
    public Set<MetricRegistryInfo> getMetricRegistryInfos() {
        return Set.copyOf(registries.keySet());
    }

    @Override
    public Collection<RatisMetricRegistry> getMetricRegistries() {
        return List.copyOf(registries.values());
    }

    @Override
    public void addReporterRegistration(Consumer<RatisMetricRegistry> reporterRegistration,
                                        Consumer<RatisMetricRegistry> stopReporter) {
        // nothing is reported
    }

    @Override
    public void enableJmxReporter() {
        // nothing is reported
    }

    @Override
    public void enableConsoleReporter(TimeDuration consoleReportRate) {
        // nothing is reported
    }

    /** A registry that records nothing. */
    private record Registry(MetricRegistryInfo info) implements RatisMetricRegistry {
        @Override
        public Timekeeper timer(String name) {
            return () -> STOPPED;
        }

        @Override
        public LongCounter counter(String name) {
            return NO_COUNT;
        }

        @Override
        public boolean remove(String name) {
            return false;
        }

        @Override
        public <T> void gauge(String name, Supplier<Supplier<T>> gaugeSupplier) {
            // not recorded
        }

        @Override
        public MetricRegistryInfo getMetricRegistryInfo() {
            return info;
        }
    }
}
