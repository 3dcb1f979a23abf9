internal import COpenSSL
internal import CStageShims
import Foundation

/// One DTLS 1.2 association (RFC 6347) with `use_srtp` (RFC 5764), driven sans-IO: feed it the
/// datagrams that arrived, send the datagrams it returns, call `handleTimeout` when
/// `nextTimeout` passes. OpenSSL works over memory BIOs; this type never touches a socket.
public final class DTLSEndpoint: @unchecked Sendable {
    public enum Role: Sendable { case client, server }

    public enum State: Equatable, Sendable {
        case handshaking
        case connected(SRTPKeyingMaterial)
        case failed(DTLSError)
        /// The peer sent close_notify (RFC 5246 §7.2.1): the association is over.
        case closed
    }

    /// Largest datagram this endpoint emits (records are packed up to it).
    public static let mtu = 1200

    public let role: Role
    public private(set) var state: State = .handshaking
    private let context: DTLSContext
    private let ssl: OpaquePointer
    private let readBIO: OpaquePointer
    private let writeBIO: OpaquePointer
    private let expectedFingerprint: [UInt8]?

    /// - Parameter remoteFingerprint: the peer's `sha-256` fingerprint from its SDP; the handshake
    ///   fails unless the peer's certificate matches it (nil only in tests of the handshake itself).
    public init(role: Role, context: DTLSContext, remoteFingerprint: [UInt8]?) throws {
        guard let ssl = SSL_new(context.context) else { throw DTLSError.openSSL("SSL_new") }
        guard let readBIO = BIO_new(BIO_s_mem()), let writeBIO = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw DTLSError.openSSL("BIO_new")
        }
        stage_bio_set_retry_on_empty(readBIO)
        stage_bio_set_retry_on_empty(writeBIO)
        SSL_set_bio(ssl, readBIO, writeBIO)
        stage_ssl_set_mtu(ssl, DTLSEndpoint.mtu - 28)
        if role == .server { SSL_set_accept_state(ssl) } else { SSL_set_connect_state(ssl) }
        self.role = role
        self.context = context
        self.ssl = ssl
        self.readBIO = readBIO
        self.writeBIO = writeBIO
        expectedFingerprint = remoteFingerprint
    }

    deinit { SSL_free(ssl) }

    /// The client's first flight (ClientHello). Servers return nothing until a datagram arrives.
    public func start() -> [[UInt8]] {
        guard role == .client else { return [] }
        return advance()
    }

    /// Feeds one received DTLS datagram; returns the datagrams to send back.
    public func receive(_ datagram: UnsafeRawBufferPointer) -> [[UInt8]] {
        guard case .handshaking = state, let base = datagram.baseAddress, datagram.count > 0 else {
            return drainApplicationData(datagram)
        }
        BIO_write(readBIO, base, Int32(datagram.count))
        return advance()
    }

    /// When the handshake waits for the peer: the time left before retransmitting.
    public var nextTimeout: Duration? {
        guard case .handshaking = state else { return nil }
        var seconds = 0, microseconds = 0
        guard stage_dtls_get_timeout(ssl, &seconds, &microseconds) == 1 else { return nil }
        return .seconds(seconds) + .microseconds(microseconds)
    }

    /// Retransmits the last flight if its timer expired (RFC 6347 §4.2.4).
    public func handleTimeout() -> [[UInt8]] {
        guard case .handshaking = state else { return [] }
        if stage_dtls_handle_timeout(ssl) < 0 { fail("retransmission limit reached") }
        return takeOutput()
    }

    /// Ends the association with a close_notify alert (RFC 5246 §7.2.1): the datagrams to send.
    public func shutdown() -> [[UInt8]] {
        guard case .connected = state else { return [] }
        SSL_shutdown(ssl)
        state = .closed
        return takeOutput()
    }

    private func advance() -> [[UInt8]] {
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            finishHandshake()
        } else {
            let error = SSL_get_error(ssl, result)
            if error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE {
                fail(Self.openSSLErrors())
            }
        }
        return takeOutput()
    }

    private func finishHandshake() {
        guard let peer = stage_ssl_peer_certificate(ssl) else { return fail("the peer sent no certificate") }
        defer { X509_free(peer) }
        if let expectedFingerprint, DTLSFingerprint.sha256(of: peer) != expectedFingerprint {
            state = .failed(.fingerprintMismatch)
            return
        }
        do {
            state = .connected(try SRTPKeyingMaterial.export(from: ssl, role: role))
        } catch let error as DTLSError {
            state = .failed(error)
        } catch {
            fail("\(error)")
        }
    }

    private func fail(_ reason: String) {
        if case .handshaking = state { state = .failed(.handshakeFailed(reason)) }
    }

    /// After the handshake: reads (and drops) application data, answers with alerts if any.
    private func drainApplicationData(_ datagram: UnsafeRawBufferPointer) -> [[UInt8]] {
        guard case .connected = state, let base = datagram.baseAddress, datagram.count > 0 else { return [] }
        BIO_write(readBIO, base, Int32(datagram.count))
        var scratch = [UInt8](repeating: 0, count: 2048)
        while true {
            let read = SSL_read(ssl, &scratch, Int32(scratch.count))
            if read > 0 { continue }
            if SSL_get_error(ssl, read) == SSL_ERROR_ZERO_RETURN { state = .closed }
            break
        }
        return takeOutput()
    }

    /// Everything OpenSSL wrote, split into datagrams of whole records up to the MTU.
    private func takeOutput() -> [[UInt8]] {
        let pending = Int(BIO_ctrl_pending(writeBIO))
        guard pending > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: pending)
        let read = Int(BIO_read(writeBIO, &bytes, Int32(pending)))
        guard read > 0 else { return [] }
        return DTLSRecords.pack(Array(bytes.prefix(read)), mtu: Self.mtu)
    }

    static func openSSLErrors() -> String {
        var messages: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? "unknown OpenSSL error" : messages.joined(separator: "; ")
    }
}

/// DTLS record boundaries (RFC 6347 §4.1: 13-byte header, 16-bit length at offset 11).
enum DTLSRecords {
    static let headerLength = 13

    /// Groups whole records into datagrams of at most `mtu` bytes (a record larger than `mtu`
    /// travels alone).
    static func pack(_ bytes: [UInt8], mtu: Int) -> [[UInt8]] {
        var datagrams: [[UInt8]] = []
        var current: [UInt8] = []
        var offset = 0
        while offset + headerLength <= bytes.count {
            let length = Int(bytes[offset + 11]) << 8 | Int(bytes[offset + 12])
            let end = min(bytes.count, offset + headerLength + length)
            if !current.isEmpty, current.count + (end - offset) > mtu {
                datagrams.append(current)
                current = []
            }
            current.append(contentsOf: bytes[offset..<end])
            offset = end
        }
        if !current.isEmpty { datagrams.append(current) }
        return datagrams
    }
}
