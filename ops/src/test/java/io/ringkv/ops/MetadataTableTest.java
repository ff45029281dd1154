package io.ringkv.ops;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class MetadataTableTest {

    private static final String STATUS = "{\"node\":\"http://127.0.0.1:8080\",\"state\":\"serving\",\"warnings\":[],"
            + "\"peers\":[{\"node\":\"http://127.0.0.1:8081\",\"state\":\"up\",\"since\":\"x\",\"forSeconds\":3,\"lastFailure\":null}],"
            + "\"metadata\":{\"epoch\":4,\"leader\":\"nb\",\"self\":\"na\",\"replicationFactor\":2,\"members\":["
            + "{\"id\":\"na\",\"url\":\"http://127.0.0.1:8080\",\"state\":\"normal\"},"
            + "{\"id\":\"nb\",\"url\":\"http://127.0.0.1:8081\",\"state\":\"leaving\"}]}}";

    @Test
    void printsTheEpochTheLeaderAndEveryMembersState() {
        String printed = print(STATUS);
        assertThat(printed, containsString("metadata epoch 4, leader nb (http://127.0.0.1:8081), replication factor 2"));
        assertThat(printed, containsString("  na      http://127.0.0.1:8080  normal"));
        assertThat(printed, containsString("  nb      http://127.0.0.1:8081  leaving"));
    }

    /** The status as nodes write it now: each member's clock slot, and the node's own membership step. */
    @Test
    void readsMembersWithTheirSlotsAndTheNodesOwnStep() {
        String printed = print("{\"metadata\":{\"epoch\":7,\"leader\":\"na\",\"self\":\"nc\",\"role\":\"outside\","
                + "\"replicationFactor\":3,\"members\":[{\"id\":\"na\",\"url\":\"http://127.0.0.1:8080\",\"state\":\"normal\","
                + "\"index\":0},{\"id\":\"nc\",\"url\":\"http://127.0.0.1:8083\",\"state\":\"joining\",\"index\":3}],"
                + "\"membership\":{\"step\":\"join\",\"phase\":\"streaming\",\"epoch\":7,\"records\":1200,\"bytes\":1250000,"
                + "\"scanned\":3000,\"toScan\":9000,\"secondsLeft\":12,\"bytesPerSecond\":500000,\"startedMillis\":1}}}");
        assertThat(printed, containsString("  na      http://127.0.0.1:8080  normal"));
        assertThat(printed, containsString("  nc      http://127.0.0.1:8083  joining"));
        assertThat(printed, containsString("this node's join streaming: 1200 records, 1250000 bytes handed over, about 12 s left"));
    }

    @Test
    void saysWhenThereIsNoLeaderOrNoMembersYet() {
        String printed = print("{\"metadata\":{\"epoch\":0,\"leader\":null,\"self\":\"na\",\"replicationFactor\":0,\"members\":[]}}");
        assertThat(printed, containsString("leader none known (metadata changes wait; data requests do not)"));
        assertThat(printed, containsString("no members yet"));
    }

    @Test
    void aStatusWithoutMetadataPrintsNothing() {
        assertThat(MetadataTable.parse("{\"node\":\"http://127.0.0.1:8080\",\"peers\":[]}").isPresent(), is(false));
    }

    private static String print(String status) {
        StringWriter out = new StringWriter();
        MetadataTable.parse(status).orElseThrow().print(new PrintWriter(out, true));
        return out.toString();
    }
}
