package io.ringkv.net;

/** What a {@link java.nio.channels.SelectionKey} is attached to. Called on the owning loop only. */
interface SelectionHandler {

    void onSelected(int readyOps);

    /** The loop is shutting down: release the channel now. */
    void onLoopClosing();
}
