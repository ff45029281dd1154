package io.ringkv.node;

import io.ringkv.cluster.ClusterNode;
import io.ringkv.cluster.ClusterSecret;
import io.ringkv.cluster.InternalAuth;
import io.ringkv.cluster.InternalProtocol;
import io.ringkv.cluster.SignedCalls;
import io.ringkv.cluster.meta.ClusterMetadata;
import io.ringkv.cluster.meta.CorruptMetadataException;
import io.ringkv.cluster.meta.Member;
import io.ringkv.cluster.meta.MemberState;
import io.ringkv.cluster.meta.MetadataCodec;
import io.ringkv.ops.InternalCallOptions;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;

/**
 * {@code serve --join URL}: before the node serves, asks the member at {@code URL} to add it to the
 * cluster ({@code POST /internal/v0/meta/join}, signed with the cluster secret and naming this
 * node as sender), and takes from the answer what the node starts from: the cluster's identity
 * (the fingerprint every internal request carries, read from the member's {@code /v0/status}), the
 * metadata that names this node {@code joining} (or {@code normal}, for a node that joined before
 * and restarts, or {@code leaving}, for one restarted in the middle of its decommission), and
 * this node's clock slot.
 *
 * <p>Stateless; blocks the starting thread.
 */
final class JoinRequest {

    /** Per call: the member waits up to about ten seconds for a majority of the metadata voters. */
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(20);
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(JoinRequest.class);
    /** How long a starting node keeps asking while no member can take its join (overloaded, no majority). */
    static final Duration PATIENCE = Duration.ofSeconds(60);
    static final Duration RETRY_PAUSE = Duration.ofSeconds(1);

    /** What the node starts from. */
    /** @param stored read from the node's data directory ({@link JoinedBefore}), not a member's answer */
    record Joined(String fingerprint, ClusterMetadata metadata, Member self, boolean stored) {
    }

    private JoinRequest() {
    }

    /** A member that answers at all is not dead: replacing it would leave two nodes claiming its keys. */
    private static void refuseIfLive(HttpClient http, ClusterNode dead) throws NodeStartException, InterruptedException {
        int status;
        try {
            status = http.send(java.net.http.HttpRequest.newBuilder(URI.create(dead.id() + "/v0/status"))
                    .timeout(Duration.ofSeconds(3)).build(), java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException down) {
            return;
        }
        throw new NodeStartException("--replace " + dead.id() + ": that node answers (" + status + " on /v0/status), so it "
                + "is not dead; decommission it (ringkv decommission --node " + dead.id() + ") or stop it first");
    }

    /**
     * @param trust the cluster's TLS trust for an https cluster, or null
     * @throws NodeStartException naming what to do when the member cannot be reached, the secret is
     *                            wrong (its answer carries no proof of it) or the metadata refuses
     */
    static Joined ask(String memberUrl, String selfUrl, ClusterSecret secret, SSLContext trust) throws NodeStartException {
        return ask(memberUrl, selfUrl, null, secret, trust);
    }

    /**
     * As above; with {@code deadUrl}, this node takes the place of that member, which must be down
     * ({@code serve --join URL --replace DEAD_URL}): it is asked for its status first, and a node
     * that answers is not replaced (decommission it instead).
     */
    static Joined ask(String memberUrls, String selfUrl, String deadUrl, ClusterSecret secret, SSLContext trust)
            throws NodeStartException {
        return ask(memberUrls, selfUrl, deadUrl, secret, trust, PATIENCE, RETRY_PAUSE);
    }

    /**
     * As above, asking the members again every {@code pause} while none could take the request
     * (each unreachable, shedding load, or without a majority of the metadata voters behind it),
     * for up to {@code patience}: a member that answers {@code 503 overloaded} while the cluster
     * serves a burst is not a reason for the new node to give up.
     */
    static Joined ask(String memberUrls, String selfUrl, String deadUrl, ClusterSecret secret, SSLContext trust,
                      Duration patience, Duration pause) throws NodeStartException {
        if (secret == null) {
            throw new NodeStartException("--join needs the cluster secret (--cluster-secret-file or $"
                    + ClusterSecret.ENVIRONMENT_VARIABLE + ")");
        }
        ClusterNode self = ClusterNode.parse(selfUrl);
        List<ClusterNode> members = members(memberUrls);
        ClusterNode dead = null;
        if (deadUrl != null) {
            try {
                dead = ClusterNode.parse(deadUrl);
            } catch (IllegalArgumentException e) {
                throw new NodeStartException("--replace " + deadUrl + ": " + e.getMessage());
            }
        }
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
        if (trust != null) {
            builder.sslContext(trust);
        }
        try (HttpClient http = builder.build()) {
            if (dead != null) {
                refuseIfLive(http, dead);
            }
            // Any live member will do: the next one is asked when one cannot be reached or has no
            // majority behind it; a refusal (the cluster said no) ends the attempt. When none could
            // take it, all are asked again after a pause, until the patience runs out.
            long deadline = System.nanoTime() + patience.toNanos();
            int rounds = 0;
            while (true) {
                StringBuilder unreachable = new StringBuilder();
                rounds++;
                for (ClusterNode member : members) {
                    try {
                        return askOne(http, member, self, dead, secret);
                    } catch (MemberUnavailable e) {
                        unreachable.append(' ').append(member.id()).append(": ").append(e.getMessage()).append(';');
                    }
                }
                if (System.nanoTime() + pause.toNanos() - deadline > 0) {
                    // A replace moves the dead member's vote, if it had one, like any metadata change: by a majority of the voters.
                    throw new NodeStartException("cannot join: no member named by --join took the request in " + rounds
                            + " rounds over " + patience.toSeconds() + " s; the last answers:" + unreachable
                            + " start this node again once one of them serves (several may be given, comma-separated)"
                            + (dead == null ? "" : "; a replace needs a majority of the metadata voters up, the dead member "
                                    + "counted among them (with three voters, the two others)"));
                }
                LOG.info("no member named by --join took the request yet ({}); asking again in {} ms",
                        unreachable.toString().strip(), pause.toMillis());
                Thread.sleep(pause.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NodeStartException("interrupted while joining through " + memberUrls, e);
        }
    }

    /** The members {@code --join} names, comma-separated. @throws NodeStartException naming one that is not a node URL */
    static List<ClusterNode> members(String memberUrls) throws NodeStartException {
        List<ClusterNode> members = new ArrayList<>();
        for (String url : memberUrls.split(",")) {
            try {
                members.add(ClusterNode.parse(url.strip()));
            } catch (IllegalArgumentException e) {
                throw new NodeStartException("--join " + url + ": " + e.getMessage());
            }
        }
        return members;
    }

    /** A member that could not take the join now (unreachable, no metadata majority): the next is asked. */
    private static final class MemberUnavailable extends Exception {
        MemberUnavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private static Joined askOne(HttpClient http, ClusterNode member, ClusterNode self, ClusterNode dead, ClusterSecret secret)
            throws NodeStartException, MemberUnavailable, InterruptedException {
        try {
            InternalCallOptions.NodeIdentity identity = InternalCallOptions.identityOf(http, URI.create(member.id()));
            InternalAuth auth = new InternalAuth(secret, self.id(), identity.topology(), System::currentTimeMillis);
            SignedCalls calls = new SignedCalls(http, auth, () -> 0, Runnable::run);
            String path = dead == null ? InternalProtocol.META_JOIN_PATH : InternalProtocol.META_REPLACE_PATH;
            String body = dead == null ? self.id() : Member.idOf(dead) + " " + self.id();
            SignedCalls.Answer answer = calls.call(identity.id(), "POST", path, body.getBytes(StandardCharsets.UTF_8), CALL_TIMEOUT)
                    .get(CALL_TIMEOUT.toMillis() + 5_000, TimeUnit.MILLISECONDS);
            if (answer.status() == 503) {
                throw new MemberUnavailable(answer.text(), null);
            }
            if (answer.status() == 409 && dead == null) {
                Optional<Joined> leaving = leaving(calls, identity, self);
                if (leaving.isPresent()) {
                    return leaving.get();
                }
            }
            if (answer.status() != 200) {
                throw new NodeStartException("the cluster did not let this node join (" + identity.id() + " answered "
                        + answer.status() + "): " + answer.text());
            }
            ClusterMetadata metadata = MetadataCodec.decodeMetadata(answer.body());
            Member mine = metadata.member(Member.idOf(self)).filter(m -> m.state() == MemberState.JOINING
                    || m.state() == MemberState.NORMAL).orElseThrow(() -> new NodeStartException("the cluster answered the "
                    + "join with metadata (epoch " + metadata.epoch() + ") that does not list this node as joining"));
            return new Joined(identity.topology(), metadata, mine, false);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            // An answer without the cluster's proof: another secret, not an unreachable member.
            if (cause.getMessage() != null && cause.getMessage().contains("proof of the cluster secret")) {
                throw new NodeStartException("cannot join through " + member.id() + ": " + cause.getMessage(), cause);
            }
            throw new MemberUnavailable(cause.getMessage(), cause);
        } catch (IOException | TimeoutException e) {
            throw new MemberUnavailable(e.toString(), e);
        }
    }

    /**
     * A node started again in the middle of its decommission (killed while it handed its keys
     * over), with the flags it joined with: the metadata refuses the join (this node is a member
     * already, leaving), and the node starts from the metadata as it is instead, which names it
     * leaving at this URL; it then takes its decommission up again ({@code Decommission}).
     *
     * @return empty when the metadata does not name this node leaving (the refusal stands)
     */
    private static Optional<Joined> leaving(SignedCalls calls, InternalCallOptions.NodeIdentity identity, ClusterNode self)
            throws IOException, ExecutionException, TimeoutException, InterruptedException {
        SignedCalls.Answer answer = calls.call(identity.id(), "GET", InternalProtocol.META_READ_PATH, new byte[0], CALL_TIMEOUT)
                .get(CALL_TIMEOUT.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        if (answer.status() != 200) {
            return Optional.empty();
        }
        ClusterMetadata metadata = MetadataCodec.decodeMetadata(answer.body());
        return metadata.member(Member.idOf(self)).filter(m -> m.state() == MemberState.LEAVING && m.url().equals(self.id()))
                .map(m -> new Joined(identity.topology(), metadata, m, false));
    }
}
