package io.ringkv.cluster.meta;

import java.io.IOException;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;

/**
 * Which base URL each Raft peer id has (a peer's Raft address is its node URL). Ratis adds peers
 * as it learns of them, from any of its threads.
 *
 * <p>Threading: thread-safe (a concurrent map).
 */
final class RaftPeerAddresses {

    private final Map<RaftPeerId, String> urls = new ConcurrentHashMap<>();

    void add(Iterable<RaftPeer> peers) {
        for (RaftPeer peer : peers) {
            if (peer.getAddress() != null) {
                urls.put(peer.getId(), peer.getAddress());
            }
        }
    }

    void add(Collection<RaftPeer> peers) {
        add((Iterable<RaftPeer>) peers);
    }

    String url(RaftPeerId peer) throws IOException {
        String url = urls.get(peer);
        if (url == null) {
            throw new IOException("no address known for Raft peer " + peer);
        }
        return url;
    }
}
