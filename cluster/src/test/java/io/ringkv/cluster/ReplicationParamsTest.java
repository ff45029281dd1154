package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ReplicationParamsTest {

    @ParameterizedTest
    @CsvSource({"1, 1/1", "2, 2/2", "3, 2/3", "4, 3/4", "5, 3/5", "6, 4/6", "10, 6/10"})
    void defaultsToAMajorityOfAllNodesWhenTheParameterIsAbsent(int clusterSize, String expected) {
        assertThat(ReplicationParams.parse(null, clusterSize).toString(), is(expected));
    }

    /** The course API's defaults for clusters of up to 3 nodes hold (RF = n there); 5 nodes at RF 3 default to 2/3. */
    @ParameterizedTest
    @CsvSource({"1, 1, 1/1", "2, 2, 2/2", "3, 3, 2/3", "5, 3, 2/3", "5, 5, 3/5", "10, 3, 2/3", "5, 1, 1/1", "6, 4, 3/4"})
    void defaultsToAMajorityOfTheReplicationFactor(int clusterSize, int rf, String expected) {
        assertThat(ReplicationParams.parse(null, clusterSize, rf).toString(), is(expected));
    }

    @Test
    void anExplicitFromMayNameEveryNodeBeyondTheReplicationFactor() {
        assertThat(ReplicationParams.parse("1/5", 5, 3), equalTo(new ReplicationParams(1, 5)));
        InvalidReplicasException e = assertThrows(InvalidReplicasException.class,
                () -> ReplicationParams.parse("1/6", 5, 3));
        assertThat(e.getMessage(), containsString("from must not exceed the 5 node(s)"));
    }

    @ParameterizedTest
    @CsvSource({"1/1, 1, 1, 1", "1/3, 3, 1, 3", "2/3, 3, 2, 3", "3/3, 3, 3, 3", "2/2, 5, 2, 2", "007/010, 10, 7, 10"})
    void acceptsValidAckFrom(String param, int clusterSize, int ack, int from) {
        assertThat(ReplicationParams.parse(param, clusterSize), equalTo(new ReplicationParams(ack, from)));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "''            | 3 | malformed",
        "2             | 3 | malformed",
        "/3            | 3 | malformed",
        "2/            | 3 | malformed",
        "2/3/          | 3 | malformed",
        "a/3           | 3 | malformed",
        "2/b           | 3 | malformed",
        "-1/3          | 3 | malformed",
        "+1/3          | 3 | malformed",
        "' 1/3'        | 3 | malformed",
        "1 /3          | 3 | malformed",
        "1/3.0         | 3 | malformed",
        "99999999999/3 | 3 | malformed",
        "1/99999999999 | 3 | malformed",
        "0/3           | 3 | ack must be at least 1",
        "0/0           | 3 | ack must be at least 1",
        "1/0           | 3 | from must be at least 1",
        "3/2           | 3 | ack must not exceed from",
        "2/4           | 3 | from must not exceed the 3 node(s)",
        "1/2           | 1 | from must not exceed the 1 node(s)",
    })
    void rejectsWithAMessageForTheClient(String param, int clusterSize, String reason) {
        InvalidReplicasException e = assertThrows(InvalidReplicasException.class,
                () -> ReplicationParams.parse(param, clusterSize));
        assertThat(e.getMessage(), allOf(startsWith("replicas=" + param), containsString(reason)));
    }

    @Test
    void isAnIllegalArgumentSoGenericBadRequestMappingCatchesIt() {
        assertThat(IllegalArgumentException.class.isAssignableFrom(InvalidReplicasException.class), is(true));
    }
}
