package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.cluster.ClusterSecretFile;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Exit codes of the command line: 0 for help, 2 for bad flags, 1 when a node cannot start. */
class CommandLineTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"--help", "serve --help", "up --help", "help serve", "--version"})
    void helpAndVersionExitZero(String args) {
        assertThat(Main.run(args.split(" ")), is(0));
    }

    @Test
    void serveWithoutRequiredFlagsIsAUsageError() {
        assertThat(Main.run("serve"), is(Main.EXIT_USAGE));
        assertThat(Main.run("serve", "--port", "8080"), is(Main.EXIT_USAGE));
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc", "-1", "65536", "70000"})
    void badPortIsAUsageError(String port) {
        assertThat(Main.run("serve", "--port", port, "--data", dir.toString()), is(Main.EXIT_USAGE));
    }

    @Test
    void unknownFlagIsAUsageError() {
        assertThat(Main.run("serve", "--port", "1", "--data", dir.toString(), "--frobnicate"), is(Main.EXIT_USAGE));
        assertThat(Main.run("launch"), is(Main.EXIT_USAGE));
    }

    @ParameterizedTest
    @ValueSource(strings = {"--internode-protocol h3", "--internode-client JDK --internode-protocol h2",
            "--internode-client DIRECT --internode-protocol h1",
            "--internode-connections 0", "--internode-batches -1", "--internode-batches many"})
    void impossibleInterNodeSettingsAreAUsageError(String flags) {
        List<String> args = new java.util.ArrayList<>(List.of("serve", "--port", "1", "--data", dir.toString()));
        args.addAll(List.of(flags.split(" ")));
        assertThat(Main.run(args.toArray(String[]::new)), is(Main.EXIT_USAGE));
    }

    @ParameterizedTest
    @ValueSource(strings = {"-PT1S", "PT2M", "soon"})
    void anImpossibleWarmUpIsAUsageError(String warmUp) {
        assertThat(Main.run("serve", "--port", "1", "--data", dir.toString(), "--warm-up", warmUp), is(Main.EXIT_USAGE));
    }

    @ParameterizedTest
    @ValueSource(strings = {"maybe", "yes", "1", "true"})
    void aMetricsSwitchOtherThanOnOrOffIsAUsageError(String value) {
        assertThat(Main.run("serve", "--port", "1", "--data", dir.toString(), "--metrics", value), is(Main.EXIT_USAGE));
    }

    /** The flag is taken in either case: the node gets as far as binding its (taken) port. */
    @ParameterizedTest
    @ValueSource(strings = {"on", "off", "OFF"})
    void theMetricsSwitchTakesOnAndOff(String value) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertThat(Main.run("serve", "--port", Integer.toString(taken.getLocalPort()), "--data",
                    dir.resolve("d").toString(), "--metrics", value), is(Main.EXIT_CANNOT_START));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"-PT0.01S", "never"})
    void anImpossibleReadSpareDelayIsAUsageError(String delay) {
        assertThat(Main.run("serve", "--port", "1", "--data", dir.toString(), "--read-spare-delay", delay), is(Main.EXIT_USAGE));
    }

    @ParameterizedTest
    @ValueSource(strings = {"--idle-timeout PT0S", "--idle-timeout -PT1S", "--header-timeout PT0S", "--header-timeout soon"})
    void aClientTimeoutThatIsNotPositiveIsAUsageError(String flags) {
        List<String> args = new java.util.ArrayList<>(List.of("serve", "--port", "1", "--data", dir.toString()));
        args.addAll(List.of(flags.split(" ")));
        assertThat(Main.run(args.toArray(String[]::new)), is(Main.EXIT_USAGE));
    }

    @ParameterizedTest
    @ValueSource(strings = {"idle", "19", "lowest", ""})
    void aJoinPriorityOtherThanLowOrNormalIsAUsageError(String value) {
        assertThat(Main.run("serve", "--port", "1", "--data", dir.toString(), "--join", "http://127.0.0.1:1",
                "--join-priority", value), is(Main.EXIT_USAGE));
    }

    @Test
    void badDurabilityIsAUsageError() {
        assertThat(Main.run("serve", "--port", "1", "--data", dir.toString(), "--durability", "sometimes"), is(Main.EXIT_USAGE));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "17", "-3"})
    void upWithAnImpossibleNodeCountIsAUsageError(String nodes) {
        assertThat(Main.run("up", "--nodes", nodes, "--data", dir.toString()), is(Main.EXIT_USAGE));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "6"})
    void upWithAReplicationFactorOutsideOneToTheNodeCountIsAUsageError(String rf) {
        assertThat(Main.run("up", "--nodes", "5", "--replication-factor", rf, "--data", dir.toString()), is(Main.EXIT_USAGE));
    }

    @ParameterizedTest
    @ValueSource(strings = {"--nodes 2", "--nodes 10", "--minutes 0", "--keys 0", "--faults SHRUG", "--rate -1",
            "--workload CAS --faults KILL,WIPE", "--workload SHRUG", "--faults MEMBERSHIP,PARTITION"})
    void chaosWithImpossibleSettingsIsAUsageError(String args) {
        assertThat(Main.run(("chaos --data " + dir + " " + args).split(" ")), is(Main.EXIT_USAGE));
    }

    @ParameterizedTest
    @ValueSource(strings = {"--tombstone-grace PT1M --anti-entropy-interval PT1M", "--tombstone-grace PT1H --hint-max-age PT2H",
            "--tombstone-grace PT0S", "--anti-entropy-interval PT0S", "--hint-replay-rate 0",
            "--anti-entropy-scan-rate 0", "--anti-entropy-scan-rate -5", "--stream-rate 0", "--hint-max-bytes-per-node -1"})
    void tombstoneGraceThatCouldResurrectDeletesIsAUsageError(String flags) {
        List<String> args = new java.util.ArrayList<>(List.of("serve", "--port", "0", "--data", dir.toString()));
        args.addAll(List.of(flags.split(" ")));
        assertThat(Main.run(args.toArray(String[]::new)), is(Main.EXIT_USAGE));
    }

    @Test
    void aClusterWithoutASecretOrWithAShortOneIsAUsageError() throws Exception {
        String list = "http://127.0.0.1:1,http://127.0.0.1:2";
        assertThat(Main.run("serve", "--port", "1", "--data", dir.toString(), "--cluster", list), is(Main.EXIT_USAGE));
        Path shortSecret = Files.writeString(dir.resolve("short.secret"), "too short\n");
        assertThat(Main.run("serve", "--port", "1", "--data", dir.toString(), "--cluster", list,
                "--cluster-secret-file", shortSecret.toString()), is(Main.EXIT_USAGE));
        assertThat(Main.run("serve", "--port", "1", "--data", dir.toString(), "--cluster", list,
                "--cluster-secret-file", dir.resolve("missing.secret").toString()), is(Main.EXIT_USAGE));
    }

    /** A replication factor beyond the node list, or below 1, is refused before anything starts. */
    @ParameterizedTest
    @ValueSource(strings = {"0", "-1", "4", "three"})
    void aReplicationFactorOutsideOneToTheNodeCountIsAUsageError(String rf) throws Exception {
        String list = "http://127.0.0.1:1,http://127.0.0.1:2,http://127.0.0.1:3";
        Path secret = ClusterSecretFile.create(dir.resolve(ClusterSecretFile.NAME));
        assertThat(Main.run("serve", "--port", "1", "--data", dir.toString(), "--cluster", list,
                "--cluster-secret-file", secret.toString(), "--replication-factor", rf), is(Main.EXIT_USAGE));
    }

    @Test
    void repairWithoutASecretIsAUsageError() {
        assertThat(Main.run("repair", "--node", "http://127.0.0.1:1"), is(Main.EXIT_USAGE));
    }

    @Test
    void metaWithoutASecretOrWithANodeThatIsNoUrlIsAUsageError(@TempDir Path dir) throws Exception {
        assertThat(Main.run("meta", "set-replication-factor", "3", "--node", "http://127.0.0.1:1"), is(Main.EXIT_USAGE));
        Path secret = Files.writeString(dir.resolve("secret"), "a cluster secret long enough to be accepted here");
        assertThat(Main.run("meta", "set-replication-factor", "3", "--node", "ftp://127.0.0.1:1",
                "--cluster-secret-file", secret.toString()), is(Main.EXIT_USAGE));
        assertThat(Main.run("repair", "--node", "not a url", "--cluster-secret-file", secret.toString()), is(Main.EXIT_USAGE));
    }

    @ParameterizedTest
    @ValueSource(strings = {"--rounds 0", "--rounds 2", "--wait --rounds -1"})
    void repairRoundsBelowOneOrSeveralWithoutWaitAreAUsageError(String flags) throws Exception {
        Path secret = Files.writeString(dir.resolve("r.secret"), "a secret that is long enough\n");
        List<String> args = new java.util.ArrayList<>(List.of("repair", "--node", "http://127.0.0.1:1",
                "--cluster-secret-file", secret.toString()));
        args.addAll(List.of(flags.split(" ")));
        assertThat(Main.run(args.toArray(String[]::new)), is(Main.EXIT_USAGE));
    }

    @Test
    void clusterListWithoutThisNodeIsAUsageError() throws Exception {
        Path secret = Files.writeString(dir.resolve("good.secret"), "a secret that is long enough\n");
        assertThat(Main.run("serve", "--port", "1", "--data", dir.toString(), "--cluster-secret-file", secret.toString(),
                "--cluster", "http://127.0.0.1:2,http://127.0.0.1:3"), is(Main.EXIT_USAGE));
    }

    @Test
    void takenPortMakesServeExitNonZero() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int code = Main.run("serve", "--port", Integer.toString(taken.getLocalPort()), "--data", dir.resolve("d").toString());
            assertThat(code, is(Main.EXIT_CANNOT_START));
        }
    }

    @Test
    void unusableDataDirectoryMakesServeExitNonZero() throws Exception {
        Path notADirectory = Files.writeString(dir.resolve("file"), "x");
        int code = Main.run("serve", "--port", "0", "--data", notADirectory.toString());
        assertThat(code, is(Main.EXIT_CANNOT_START));
    }
}
