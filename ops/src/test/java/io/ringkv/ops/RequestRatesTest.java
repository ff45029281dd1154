package io.ringkv.ops;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.closeTo;
import static org.hamcrest.Matchers.is;

import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/**
 * Rates and latency quantiles of the data requests between two metrics readings, as
 * {@code ringkv status} and the dashboard compute them.
 */
class RequestRatesTest {

    /** Ten GETs, all within 1 ms; status scrapes too, which are not data requests. */
    private static final String BEFORE = """
            ringkv_requests_total{operation="get",status="200"} 10
            ringkv_requests_total{operation="status",status="200"} 5
            ringkv_request_duration_seconds_bucket{operation="get",le="0.001"} 10
            ringkv_request_duration_seconds_bucket{operation="get",le="0.0025"} 10
            ringkv_request_duration_seconds_bucket{operation="get",le="0.005"} 10
            ringkv_request_duration_seconds_bucket{operation="get",le="+Inf"} 10
            ringkv_request_duration_seconds_bucket{operation="status",le="0.001"} 5
            ringkv_request_duration_seconds_bucket{operation="status",le="0.0025"} 5
            ringkv_request_duration_seconds_bucket{operation="status",le="0.005"} 5
            ringkv_request_duration_seconds_bucket{operation="status",le="+Inf"} 5
            """;

    /**
     * 100 more: 80 GETs and 20 PUTs; 50 within 1 ms, 40 in (1, 2.5], 9 in (2.5, 5], 1 beyond;
     * and a thousand slow status scrapes that must not count.
     */
    private static final String AFTER = """
            ringkv_requests_total{operation="get",status="200"} 85
            ringkv_requests_total{operation="get",status="404"} 5
            ringkv_requests_total{operation="put",status="201"} 20
            ringkv_requests_total{operation="status",status="200"} 1005
            ringkv_request_duration_seconds_bucket{operation="get",le="0.001"} 50
            ringkv_request_duration_seconds_bucket{operation="get",le="0.0025"} 80
            ringkv_request_duration_seconds_bucket{operation="get",le="0.005"} 89
            ringkv_request_duration_seconds_bucket{operation="get",le="+Inf"} 90
            ringkv_request_duration_seconds_bucket{operation="put",le="0.001"} 10
            ringkv_request_duration_seconds_bucket{operation="put",le="0.0025"} 20
            ringkv_request_duration_seconds_bucket{operation="put",le="0.005"} 20
            ringkv_request_duration_seconds_bucket{operation="put",le="+Inf"} 20
            ringkv_request_duration_seconds_bucket{operation="status",le="0.001"} 5
            ringkv_request_duration_seconds_bucket{operation="status",le="0.0025"} 5
            ringkv_request_duration_seconds_bucket{operation="status",le="0.005"} 5
            ringkv_request_duration_seconds_bucket{operation="status",le="+Inf"} 1005
            """;

    private final RequestRates rates = RequestRates.between(sample(BEFORE, 0), sample(AFTER, 2_000_000_000L)).orElseThrow();

    @Test
    void theRateIsTheDataRequestsBetweenTheReadingsPerSecond() {
        assertThat(rates.perSecond(), closeTo(50, 1e-9));
        assertThat(rates.anyRequests(), is(true));
    }

    @Test
    void quantilesAreInterpolatedInsideTheirBucketAsHistogramQuantileDoes() {
        assertThat(rates.quantileSeconds(0.5).getAsDouble(), closeTo(0.001, 1e-12));
        assertThat(rates.quantileSeconds(0.7).getAsDouble(), closeTo(0.00175, 1e-12)); // halfway through (1, 2.5] ms
        assertThat(rates.quantileSeconds(0.99).getAsDouble(), closeTo(0.005, 1e-12));
        assertThat("beyond the last finite bound: that bound", rates.quantileSeconds(0.999).getAsDouble(), closeTo(0.005, 1e-12));
    }

    @Test
    void theBucketOfAQuantileIsItsUpperBound() {
        assertThat(rates.bucketOf(0.99).getAsDouble(), is(0.005));
        assertThat(rates.bucketOf(0.999).getAsDouble(), is(Double.POSITIVE_INFINITY));
        assertThat(rates.boundBelow(Double.POSITIVE_INFINITY).getAsDouble(), is(0.005));
        assertThat(rates.boundBelow(0.001), is(OptionalDouble.empty()));
    }

    @Test
    void noRequestsBetweenTheReadingsGiveARateOfZeroAndNoQuantiles() {
        RequestRates idle = RequestRates.between(sample(AFTER, 0), sample(AFTER, 1_000_000_000L)).orElseThrow();
        assertThat(idle.perSecond(), is(0.0));
        assertThat(idle.anyRequests(), is(false));
        assertThat(idle.quantileSeconds(0.99), is(OptionalDouble.empty()));
        assertThat(idle.bucketOf(0.99), is(OptionalDouble.empty()));
    }

    @Test
    void thereIsNoRateWithoutMetricsOrWithReadingsOutOfOrder() {
        NodeSample down = new NodeSample("http://127.0.0.1:9", 0, "unreachable", null, 1_000_000_000L);
        assertThat(RequestRates.between(sample(BEFORE, 0), down).isPresent(), is(false));
        assertThat(RequestRates.between(sample(AFTER, 5), sample(BEFORE, 5)).isPresent(), is(false));
    }

    private static NodeSample sample(String metrics, long atNanos) {
        return new NodeSample("http://127.0.0.1:9", 200, "{}", PrometheusText.parse(metrics), atNanos);
    }
}
