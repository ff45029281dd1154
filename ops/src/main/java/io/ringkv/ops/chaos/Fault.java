package io.ringkv.ops.chaos;

/** What a nemesis can do to one node for a while; each fault ends by healing that node. */
public enum Fault {
    /** SIGKILL, then a restart on the same port and data directory. */
    KILL,
    /** SIGSTOP, then SIGCONT: a node that hangs (a GC pause, a stuck disk) and comes back. */
    PAUSE,
    /** SIGKILL, the data directory deleted, then a restart with no data: a replaced disk. */
    WIPE,
    /**
     * The node's links to every other node cut, clients still reaching it, then restored: a
     * network partition ({@link NetworkNamespaces}; needs root).
     */
    PARTITION,
    /**
     * SIGKILL, then a restart with the node's wall clock shifted (a machine back from a reboot with
     * a wrong clock), then, to heal, SIGKILL and a restart with the true clock. The shift is drawn
     * by the nemesis, ahead or behind, within and beyond the cluster's clock bound.
     */
    SKEW,
    /**
     * The node's wall clock steps while it runs (an NTP step, a VM restored from a snapshot), then
     * steps back to heal; no restart. The step is drawn as for {@link #SKEW}.
     */
    JUMP,
    /**
     * A node joins the cluster ({@code serve --join}, streaming the keys it will own), then, to
     * heal, is decommissioned and leaves: the owners of a part of the keys change twice while the
     * workload runs. The target node is not faulted; clients keep addressing the initial nodes.
     */
    MEMBERSHIP
}
