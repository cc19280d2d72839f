package dev.tandem.rest.shutdown;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import org.springframework.http.HttpHeaders;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.util.function.BooleanSupplier;

/**
 * A response that adds {@code Connection: close} just before it is committed, if the drain has
 * begun by then, so that a request already in flight when the drain began still tells its client
 * to drop the connection. Checking as the request starts is not enough: Spring MVC's message
 * converters flush the body (which commits the response) inside the handler, and Tomcat only
 * reads the header as it commits (Http11Processor.prepareResponse); once Tomcat has paused, it ends
 * the connection after the response but without the header, so a client cannot tell.
 *
 * <p>The servlet API has no commit callback, so every way to commit goes through {@link #beforeCommit()}:
 * a write (the buffer may fill), a flush or close of the body, {@link #flushBuffer()}, an error or a
 * redirect, and the end of the request ({@link ShutdownDrain} calls it after the chain, for a
 * response with no body or one the handler left in the buffer).
 */
final class ClosingOnCommitResponse extends HttpServletResponseWrapper {

    private final BooleanSupplier draining;
    private ServletOutputStream body;
    private PrintWriter writer;

    ClosingOnCommitResponse(HttpServletResponse response, BooleanSupplier draining) {
        super(response);
        this.draining = draining;
    }

    /** Adds the header if the drain has begun and the response can still take it. */
    void beforeCommit() {
        if (draining.getAsBoolean() && !isCommitted()) {
            // Tomcat then ends the connection after this response (Http11Processor honours it).
            setHeader(HttpHeaders.CONNECTION, "close");
        }
    }

    @Override
    public void flushBuffer() throws IOException {
        beforeCommit();
        super.flushBuffer();
    }

    @Override
    public void sendError(int status, String message) throws IOException {
        beforeCommit();
        super.sendError(status, message);
    }

    @Override
    public void sendError(int status) throws IOException {
        beforeCommit();
        super.sendError(status);
    }

    @Override
    public void sendRedirect(String location) throws IOException {
        beforeCommit();
        super.sendRedirect(location);
    }

    @Override
    public void sendRedirect(String location, int status) throws IOException {
        beforeCommit();
        super.sendRedirect(location, status);
    }

    @Override
    public void sendRedirect(String location, boolean clearBuffer) throws IOException {
        beforeCommit();
        super.sendRedirect(location, clearBuffer);
    }

    @Override
    public void sendRedirect(String location, int status, boolean clearBuffer) throws IOException {
        beforeCommit();
        super.sendRedirect(location, status, clearBuffer);
    }

    @Override
    public ServletOutputStream getOutputStream() throws IOException {
        if (body == null) {
            body = new Body(super.getOutputStream());
        }
        return body;
    }

    @Override
    public PrintWriter getWriter() throws IOException {
        if (writer == null) {
            writer = new PrintWriter(new Text(super.getWriter()));
        }
        return writer;
    }

    private final class Body extends ServletOutputStream {

        private final ServletOutputStream target;

        Body(ServletOutputStream target) {
            this.target = target;
        }

        @Override
        public void write(int b) throws IOException {
            beforeCommit();
            target.write(b);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            beforeCommit();
            target.write(bytes, offset, length);
        }

        @Override
        public void write(ByteBuffer bytes) throws IOException {
            beforeCommit();
            target.write(bytes);
        }

        @Override
        public void flush() throws IOException {
            beforeCommit();
            target.flush();
        }

        @Override
        public void close() throws IOException {
            beforeCommit();
            target.close();
        }

        @Override
        public boolean isReady() {
            return target.isReady();
        }

        @Override
        public void setWriteListener(WriteListener listener) {
            target.setWriteListener(listener);
        }
    }

    private final class Text extends Writer {

        private final PrintWriter target;

        Text(PrintWriter target) {
            this.target = target;
        }

        @Override
        public void write(char[] chars, int offset, int length) {
            beforeCommit();
            target.write(chars, offset, length);
        }

        @Override
        public void flush() {
            beforeCommit();
            target.flush();
        }

        @Override
        public void close() {
            beforeCommit();
            target.close();
        }
    }
}
