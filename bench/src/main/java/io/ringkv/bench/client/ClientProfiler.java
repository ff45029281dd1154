package io.ringkv.bench.client;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * JMH profiler ({@code -prof io.ringkv.bench.client.ClientProfiler}) adding two secondary
 * results from {@link ClientMeter}:
 * <ul>
 *   <li>{@code client.alloc.norm}: bytes allocated per operation by everything but the server's
 *       threads (JMH's {@code gc.alloc.rate.norm} counts the server too, and in the last
 *       iteration the trial's teardown as well; this one stops at {@link ClientMeter#markTrialEnd});</li>
 *   <li>{@code client.threads}: threads started since the client was built, server excluded;
 *       reported as the maximum over iterations (the count only grows).</li>
 *   <li>{@code host.steal}: percent of the machine's CPU time the hypervisor gave to other
 *       guests during the iteration ({@link HostSteal}); absent where {@code /proc/stat} is.</li>
 * </ul>
 *
 * <p>Threading: JMH calls the hooks from one thread per iteration.
 */
public final class ClientProfiler implements InternalProfiler {
    private long[] before;
    private HostSteal stealBefore;

    @Override
    public String getDescription() {
        return "client-only allocation per operation and threads started by the client (server excluded)";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        ClientMeter.forgetTrialEnd();
        before = ClientMeter.allocatedBytes();
        stealBefore = HostSteal.now();
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams,
            IterationParams iterationParams, IterationResult result) {
        long[] after = ClientMeter.allocatedBytesAtIterationEnd();
        long clientBytes = (after[0] - before[0]) - (after[1] - before[1]);
        long ops = Math.max(1, result.getMetadata().getAllOps());
        List<Result> results = new ArrayList<>(List.of(
                new ScalarResult("client.alloc.norm", (double) clientBytes / ops, "B/op", AggregationPolicy.AVG),
                new ScalarResult("client.threads", ClientMeter.clientThreadsStarted(), "threads", AggregationPolicy.MAX)));
        HostSteal stealAfter = HostSteal.now();
        if (stealBefore != null && stealAfter != null) {
            results.add(new ScalarResult("host.steal", stealAfter.stolenPercentSince(stealBefore), "%",
                    AggregationPolicy.AVG));
        }
        return results;
    }
}
