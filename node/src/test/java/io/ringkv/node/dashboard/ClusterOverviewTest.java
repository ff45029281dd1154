package io.ringkv.node.dashboard;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import org.junit.jupiter.api.Test;

/**
 * What a node row of the overview says of a node's membership step and metadata epoch, read from
 * its status (the node-level half of this, a row's fields in /ui/api/cluster, is DashboardTest's).
 */
class ClusterOverviewTest {

    @Test
    void aNodeRowNamesItsMembershipStepAndTheMetadataEpochItsStatusNames() {
        // A node that joins or leaves shows its phase and the bytes moved so far beside its state.
        assertThat(ClusterOverview.member("joining", "{\"metadata\":{\"membership\":{\"step\":\"join\",\"phase\":\"streaming\","
                + "\"epoch\":2,\"records\":10,\"bytes\":12345678,\"scanned\":20}}}"), is("joining: streaming, 12.3 MB"));
        assertThat("with the estimate once the hand-over has one", ClusterOverview.member("joining",
                "{\"metadata\":{\"membership\":{\"step\":\"join\",\"phase\":\"streaming\",\"epoch\":2,\"records\":10,"
                        + "\"bytes\":12345678,\"scanned\":20,\"toScan\":90,\"secondsLeft\":4}}}"),
                is("joining: streaming, 12.3 MB, about 4 s left"));
        assertThat("not while it has none", ClusterOverview.member("joining",
                "{\"metadata\":{\"membership\":{\"step\":\"join\",\"phase\":\"streaming\",\"epoch\":2,\"records\":10,"
                        + "\"bytes\":12345678,\"scanned\":20,\"toScan\":90,\"secondsLeft\":-1}}}"),
                is("joining: streaming, 12.3 MB"));
        assertThat(ClusterOverview.member("normal", "{\"metadata\":{\"membership\":{\"step\":\"join\",\"phase\":\"done\","
                + "\"epoch\":3,\"records\":10,\"bytes\":12345678,\"scanned\":20}}}"), is("normal"));
        assertThat(ClusterOverview.metadataEpoch("{\"peers\":[],\"metadata\":{\"epoch\":7,\"leader\":null}}"), is(7L));
        assertThat(ClusterOverview.metadataEpoch("{\"peers\":[]}"), is((Long) null));
    }
}
