package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code ringkv replace}'s flags: what serve command they stand for, and the contradictions it
 * refuses with a usage error (exit 2) before any node starts. The replacement itself, on node
 * processes, is in {@link MembershipIT}.
 */
class ReplaceCommandTest {
    private static final String DEAD = "http://127.0.0.1:7002";
    private static final String MEMBER = "http://127.0.0.1:7001";

    private final StringWriter err = new StringWriter();

    @Test
    void standsForServeWithTheHostAndPortOfTheNewNode() {
        assertThat(serveArguments("--dead", DEAD, "--node", "http://10.0.0.4:7004", "--join", MEMBER,
                        "--data", "d", "--cluster-secret-file", "s", "--stream-rate", "8"),
                equalTo(List.of("--host", "10.0.0.4", "--port", "7004", "--join", MEMBER, "--replace", DEAD,
                        "--data", "d", "--cluster-secret-file", "s", "--stream-rate", "8")));
    }

    @Test
    void anHttpsNodeTakesTheTlsFlagsThrough() {
        List<String> args = serveArguments("--dead", DEAD, "--node", "https://node4.example:7004", "--join", MEMBER,
                "--data", "d", "--tls-cert", "c.pem", "--tls-key", "k.pem");
        assertThat(args.subList(0, 4), equalTo(List.of("--host", "node4.example", "--port", "7004")));
        assertThat(args.subList(8, args.size()), equalTo(List.of("--data", "d", "--tls-cert", "c.pem", "--tls-key", "k.pem")));
    }

    @Test
    void refusesFlagsItDerivesItself() {
        assertThat(run("--dead", DEAD, "--node", "http://127.0.0.1:7004", "--join", MEMBER, "--data", "d", "--port", "7005"),
                is(Main.EXIT_USAGE));
        assertThat(err.toString(), containsString("--port is not taken by `ringkv replace`: the host and port come from --node"));
        assertThat(run("--dead", DEAD, "--node", "http://127.0.0.1:7004", "--join", MEMBER, "--data", "d",
                "--cluster=" + MEMBER), is(Main.EXIT_USAGE));
        assertThat(err.toString(), containsString("the new node takes its member list from the cluster"));
        assertThat(run("--dead", DEAD, "--node", "http://127.0.0.1:7004", "--join", MEMBER, "--data", "d",
                "--replace", DEAD), is(Main.EXIT_USAGE));
        assertThat(err.toString(), containsString("--replace is not taken by `ringkv replace`: the member to replace is --dead"));
    }

    @Test
    void refusesANodeUrlThatIsNotHostAndPort() {
        for (String url : List.of("127.0.0.1:7004", "http://127.0.0.1", "http://127.0.0.1:7004/v0", "ftp://127.0.0.1:7004",
                "http://127.0.0.1:7004?x=1")) {
            assertThat(url, run("--dead", DEAD, "--node", url, "--join", MEMBER, "--data", "d"), is(Main.EXIT_USAGE));
            assertThat(err.toString(), containsString("--node must be the new node's http://host:port or https://host:port"));
        }
    }

    @Test
    void refusesASchemeTheTlsFlagsContradict() {
        assertThat(run("--dead", DEAD, "--node", "https://127.0.0.1:7004", "--join", MEMBER, "--data", "d"),
                is(Main.EXIT_USAGE));
        assertThat(err.toString(), containsString("is https: give the node's certificate and key with --tls-cert and --tls-key"));
        assertThat(run("--dead", DEAD, "--node", "http://127.0.0.1:7004", "--join", MEMBER, "--data", "d",
                "--tls-cert", "c.pem", "--tls-key", "k.pem"), is(Main.EXIT_USAGE));
        assertThat(err.toString(), containsString("is http, but --tls-cert makes the node serve https"));
    }

    @Test
    void needsTheDeadMemberTheNewNodeAndAMemberToAsk() {
        assertThat(run("--node", "http://127.0.0.1:7004", "--join", MEMBER, "--data", "d"), is(Main.EXIT_USAGE));
        assertThat(err.toString(), containsString("--dead"));
        assertThat(run("--dead", DEAD, "--join", MEMBER, "--data", "d"), is(Main.EXIT_USAGE));
        assertThat(err.toString(), containsString("--node"));
    }

    /**
     * A dead member "replaced" at its own address: the probe of the dead member would reach the new
     * node itself, and the refusal would say the member answers. Refused before anything starts.
     */
    @Test
    void refusesToReplaceTheDeadMemberAtItsOwnAddress() {
        for (String dead : List.of("http://127.0.0.1:7004", "https://127.0.0.1:7004/", "http://127.0.0.1:7004/")) {
            assertThat(dead, run("--dead", dead, "--node", "http://127.0.0.1:7004", "--join", MEMBER, "--data", "d"),
                    is(Main.EXIT_USAGE));
            assertThat(err.toString(), containsString("is this node's own address: a node cannot take its own place"));
        }
    }

    /** The serve flags are checked by serve itself: a joining node takes the replication factor from the cluster. */
    @Test
    void serveChecksTheFlagsItReceives() {
        assertThat(run("--dead", DEAD, "--node", "http://127.0.0.1:7004", "--join", MEMBER, "--data", "d",
                "--replication-factor", "2"), is(Main.EXIT_USAGE));
        assertThat(err.toString(), containsString("--replication-factor is the cluster's"));
    }

    private int run(String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "replace";
        System.arraycopy(args, 0, all, 1, args.length);
        return Main.run(new PrintWriter(new StringWriter()), new PrintWriter(err, true), all);
    }

    private static List<String> serveArguments(String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "replace";
        System.arraycopy(args, 0, all, 1, args.length);
        CommandLine.ParseResult parsed = new CommandLine(new Main()).parseArgs(all);
        return ((ReplaceCommand) parsed.subcommand().commandSpec().userObject()).serveArguments();
    }
}
