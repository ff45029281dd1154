package io.ringkv.http.client.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The ordered links one call passes through, and the position of one link in it. Immutable: each
 * {@link #proceed} hands the next link a chain positioned after it. The last link (the network
 * link) never proceeds; calling it there is a bug and fails loudly.
 */
public final class Chain {
    private final List<Link> links;
    private final int index;
    private final Call<?> call;

    Chain(List<Link> links, Call<?> call) {
        this(links, 0, call);
    }

    private Chain(List<Link> links, int index, Call<?> call) {
        this.links = links;
        this.index = index;
        this.call = call;
    }

    /** The call this chain runs for (to attach exchanges, read settings). */
    public Call<?> call() {
        return call;
    }

    /** Runs the rest of the chain for {@code request}, from the link after the current one. */
    public CompletableFuture<Interim> proceed(ExchangeRequest request) {
        if (index >= links.size()) {
            throw new IllegalStateException("the network link must not call proceed");
        }
        return links.get(index).intercept(request, new Chain(links, index + 1, call));
    }
}
