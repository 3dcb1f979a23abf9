import StageWire

/// Reading what the server sends: responses (RFC 8489 §6.3, RFC 8656 §7.3–§12.3), Data
/// indications (§11.4) and ChannelData (§12.6).
extension TURNAllocation {
    /// Reads bytes from the server: one datagram over UDP, or whatever the socket returned over
    /// TCP (split into messages here, RFC 8656 §12.5).
    public mutating func receive(_ bytes: [UInt8], now: ContinuousClock.Instant) -> [Event] {
        switch state {
        case .idle, .closed, .failed: return []
        case .allocating, .allocated, .closing: break
        }
        var events: [Event] = []
        switch configuration.transport {
        case .udp:
            receiveDatagram(bytes, now: now, into: &events)
        case .tcp:
            do {
                try splitter.append(bytes)
            } catch {
                fail(.stream(error), into: &events)
                return events
            }
            while isActive {
                do {
                    guard let frame = try splitter.nextFrame() else { break }
                    switch frame {
                    case .stun(let message): handle(message, now: now, into: &events)
                    case .channelData(let message): handle(message, into: &events)
                    }
                } catch where error.isFatal {
                    fail(.stream(error), into: &events)
                } catch {
                    drop(.malformedSTUN)
                }
            }
        }
        return events
    }

    var isActive: Bool {
        switch state {
        case .allocating, .allocated, .closing: true
        case .idle, .closed, .failed: false
        }
    }

    mutating func drop(_ reason: DropReason) { drops[reason, default: 0] += 1 }

    mutating func receiveDatagram(_ bytes: [UInt8], now: ContinuousClock.Instant, into events: inout [Event]) {
        guard let first = bytes.first else { return drop(.malformed) }
        if TURNChannelData.isChannelData(firstByte: first) {
            guard let message = try? TURNChannelData(parsing: bytes) else { return drop(.malformed) }
            handle(message, into: &events)
        } else if first & 0xC0 == 0 {
            guard let message = try? STUNMessage(parsing: bytes) else { return drop(.malformedSTUN) }
            handle(message, now: now, into: &events)
        } else {
            drop(.malformed)
        }
    }

    /// §12.6: data on a channel this client asked for (bound, or its ChannelBind in flight).
    mutating func handle(_ message: TURNChannelData, into events: inout [Event]) {
        guard let peer = peersByChannel[message.channel] else { return drop(.unboundChannel) }
        events.append(.data(from: peer, payload: message.payload))
    }

    mutating func handle(_ message: STUNMessage, now: ContinuousClock.Instant, into events: inout [Event]) {
        switch message.type.messageClass {
        case .indication:
            guard message.type.method == .data else { return drop(.unexpectedMessage) }
            // §11.4: XOR-PEER-ADDRESS and DATA, from an IP this client has a permission for.
            guard let peer = try? message.xorPeerAddress, let data = message.data else { return drop(.malformedSTUN) }
            guard permissions[peer.ip] != nil else { return drop(.noPermission) }
            events.append(.data(from: peer, payload: Array(data)))
        case .request:
            drop(.unexpectedMessage)
        case .successResponse, .errorResponse:
            guard let transaction = transactions[message.transactionID],
                  transaction.kind.method == message.type.method
            else { return drop(.unknownTransaction) }
            // RFC 8489 §9.2.5: a response to an authenticated request must carry a matching
            // MESSAGE-INTEGRITY, except the errors that cannot (401, 438 and 400/420).
            if transaction.authenticated, let key {
                let exempt = message.type.messageClass == .errorResponse && message.messageIntegrity == nil
                guard exempt || message.verifyIntegrity(key: key, hmacSHA1: TURNCrypto.hmacSHA1) else {
                    return drop(.integrityMismatch)
                }
            }
            transactions[message.transactionID] = nil
            if message.type.messageClass == .successResponse {
                succeeded(transaction, message, now: now, into: &events)
            } else {
                failed(transaction, message, now: now, into: &events)
            }
        }
    }

    mutating func succeeded(_ transaction: Transaction, _ message: STUNMessage, now: ContinuousClock.Instant, into events: inout [Event]) {
        switch transaction.kind {
        case .allocate:
            guard state == .allocating else { return }
            let relayed: STUNAddress?, lifetime: UInt32?
            do {
                relayed = try message.xorRelayedAddress
                lifetime = try message.lifetime
            } catch {
                return fail(.malformedResponse(method: .allocate, error), into: &events)
            }
            guard let relayed else { return fail(.malformedResponse(method: .allocate, nil), into: &events) }
            let mapped = try? message.xorMappedAddress
            let seconds = lifetime ?? Self.defaultLifetime
            state = .allocated(relayed: relayed)
            relayedAddress = relayed
            mappedAddress = mapped
            schedule(lifetime: seconds, now: now)
            events.append(.allocated(relayed: relayed, mapped: mapped, lifetime: .seconds(seconds)))
            sendDueRequests(now: now, into: &events)
        case .refresh(let asked):
            let granted = (try? message.lifetime) ?? asked ?? Self.defaultLifetime
            if asked == 0 || state == .closing || granted == 0 { return finishClosing(into: &events) }
            schedule(lifetime: granted, now: now)
            events.append(.refreshed(lifetime: .seconds(granted)))
        case .createPermission(let ip, _):
            guard var permission = permissions[ip] else { return }
            let first = !permission.installed
            permission.installed = true
            permission.inFlight = false
            permission.refreshAt = now + configuration.permissionRefreshInterval
            permissions[ip] = permission
            if first { events.append(.permissionCreated(ip)) }
        case .channelBind(let peer, let number):
            guard var channel = channels[peer], channel.number == number else { return }
            let first = !channel.bound
            channel.bound = true
            channel.inFlight = false
            channel.refreshAt = now + configuration.channelRefreshInterval
            channels[peer] = channel
            if first { events.append(.channelBound(peer: peer, channel: number)) }
        }
    }

    mutating func failed(_ transaction: Transaction, _ message: STUNMessage, now: ContinuousClock.Instant, into events: inout [Event]) {
        let method = transaction.kind.method
        let code: STUNErrorCode
        do {
            code = try message.errorCode ?? STUNErrorCode(code: STUNErrorCode.serverError, reason: "no ERROR-CODE")
        } catch {
            return transactionFailed(transaction.kind, .malformedResponse(method: method, error), into: &events)
        }
        switch code.code {
        case STUNErrorCode.unauthorized where !transaction.authenticated,
             STUNErrorCode.staleNonce:
            // RFC 8489 §9.2.5: learn REALM and NONCE, then repeat the request authenticated.
            if code.code == STUNErrorCode.staleNonce, transaction.staleNonceRetries >= configuration.maximumStaleNonceRetries {
                return transactionFailed(transaction.kind, .tooManyStaleNonces(method: method), into: &events)
            }
            guard let nonce = try? message.nonce, let realm = (try? message.realm) ?? self.realm else {
                return transactionFailed(transaction.kind, .missingRealmOrNonce(method: method, code), into: &events)
            }
            learn(realm: realm, nonce: nonce)
            let retries = transaction.staleNonceRetries + (code.code == STUNErrorCode.staleNonce ? 1 : 0)
            send(transaction.kind, now: now, staleNonceRetries: retries, into: &events)
        case STUNErrorCode.unauthorized:
            transactionFailed(transaction.kind, .unauthorized(code), into: &events)
        default:
            transactionFailed(transaction.kind, .serverError(method: method, code), into: &events)
        }
    }

    /// RFC 8656 §3.2: the default lifetime, when a response leaves LIFETIME out.
    static let defaultLifetime: UInt32 = 600

    /// The new realm and nonce, and the key when the realm changed (RFC 8489 §9.2.2).
    mutating func learn(realm: String, nonce: String) {
        if key == nil || realm != self.realm {
            key = STUNMessage.longTermKey(
                username: configuration.username, realm: realm, password: configuration.password, md5: TURNCrypto.md5)
        }
        self.realm = realm
        self.nonce = nonce
    }

    /// Expiry and the next Refresh: 60 s before the end, or half-way for lifetimes under 2 min.
    mutating func schedule(lifetime seconds: UInt32, now: ContinuousClock.Instant) {
        allocationExpiry = now + .seconds(seconds)
        refreshAt = now + (seconds > 120 ? .seconds(seconds - 60) : .seconds(seconds) / 2)
    }
}
