package io.sediment.testutil;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy to a server that can stop forwarding without closing anything, as a network partition
 * does: connections stay open, bytes stop arriving. For testing what a client does when its
 * database stops answering.
 */
public final class StallingProxy implements AutoCloseable {

  private final ServerSocket server;
  private final String host;
  private final int port;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final Object gate = new Object();
  private volatile boolean stalled;
  private volatile boolean closed;

  /** Forwards connections to {@code host:port} from a free local port. */
  public StallingProxy(String host, int port) throws IOException {
    this.host = host;
    this.port = port;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(this::accept, "stalling-proxy-accept");
    accept.setDaemon(true);
    accept.start();
  }

  public int port() {
    return server.getLocalPort();
  }

  /** From now on nothing is forwarded, in either direction; connections stay open. */
  public void stall() {
    stalled = true;
  }

  /** Forwards again. */
  public void resume() {
    synchronized (gate) {
      stalled = false;
      gate.notifyAll();
    }
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = server.accept();
        Socket upstream = new Socket(host, port);
        sockets.add(client);
        sockets.add(upstream);
        pump(client, upstream);
        pump(upstream, client);
      } catch (IOException e) {
        return;
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread t =
        new Thread(
            () -> {
              byte[] buf = new byte[8192];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                  synchronized (gate) {
                    while (stalled && !closed) {
                      gate.wait();
                    }
                  }
                  out.write(buf, 0, n);
                  out.flush();
                }
              } catch (IOException | InterruptedException e) {
                // a side closed
              }
            },
            "stalling-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  @Override
  public void close() throws IOException {
    closed = true;
    resume();
    server.close();
    for (Socket s : sockets) {
      s.close();
    }
  }
}
