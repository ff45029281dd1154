package io.ringkv.http.h2;

/** Which end of the connection we are. Clients open odd streams, servers even ones (RFC 9113 §5.1.1). */
public enum Role {
    CLIENT, SERVER;

    /** True if {@code streamId} is one this role opens. */
    public boolean initiates(int streamId) {
        return (streamId % 2 == 1) == (this == CLIENT);
    }
}
