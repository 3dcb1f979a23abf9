/// `o=<username> <sess-id> <sess-version> <nettype> <addrtype> <unicast-address>` (RFC 8866 §5.2).
public struct SDPOrigin: Hashable, Sendable {
    /// `-` when there is no user (JSEP, RFC 8829 §5.2.1).
    public var username: String
    /// A numeric string; JSEP makes it a random 62-bit number, so it is kept as text.
    public var sessionID: String
    /// Incremented by each new offer or answer of the session (RFC 8829 §5.2.2).
    public var sessionVersion: UInt64
    public var networkType: String
    public var addressType: String
    public var address: String

    public init(
        username: String = "-", sessionID: String, sessionVersion: UInt64,
        networkType: String = "IN", addressType: String = "IP4", address: String = "127.0.0.1"
    ) {
        self.username = username
        self.sessionID = sessionID
        self.sessionVersion = sessionVersion
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }

    public init(sdpValue: Substring) throws(SDPValueError) {
        let fields = sdpValue.sdpFields
        guard fields.count == 6 else {
            throw SDPValueError("o= needs 6 fields: username sess-id sess-version nettype addrtype address (RFC 8866 §5.2)")
        }
        guard isDigits(fields[1]) else {
            throw SDPValueError("o= sess-id must be digits (RFC 8866 §5.2)")
        }
        username = String(fields[0])
        sessionID = String(fields[1])
        sessionVersion = try sdpRequireDecimal(fields[2], as: UInt64.self, "o= sess-version must be a number (RFC 8866 §5.2)")
        networkType = String(fields[3])
        addressType = String(fields[4])
        address = String(fields[5])
    }

    public var sdpValue: String {
        "\(username) \(sessionID) \(sessionVersion) \(networkType) \(addressType) \(address)"
    }
}

/// `c=<nettype> <addrtype> <connection-address>` (RFC 8866 §5.7).
public struct SDPConnection: Hashable, Sendable {
    public var networkType: String
    public var addressType: String
    /// The address, with any `/ttl/count` suffix as written.
    public var address: String

    public init(networkType: String = "IN", addressType: String = "IP4", address: String = "0.0.0.0") {
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }

    public init(sdpValue: Substring) throws(SDPValueError) {
        let fields = sdpValue.sdpFields
        guard fields.count == 3 else {
            throw SDPValueError("c= needs 3 fields: nettype addrtype address (RFC 8866 §5.7)")
        }
        networkType = String(fields[0])
        addressType = String(fields[1])
        address = String(fields[2])
    }

    public var sdpValue: String { "\(networkType) \(addressType) \(address)" }
}

/// `t=<start-time> <stop-time>` (RFC 8866 §5.9); WebRTC always writes `t=0 0`.
public struct SDPTiming: Hashable, Sendable {
    public var start: UInt64
    public var stop: UInt64

    public init(start: UInt64 = 0, stop: UInt64 = 0) {
        self.start = start
        self.stop = stop
    }

    public init(sdpValue: Substring) throws(SDPValueError) {
        let fields = sdpValue.sdpFields
        guard fields.count == 2,
              let start = sdpDecimal(fields[0], as: UInt64.self), let stop = sdpDecimal(fields[1], as: UInt64.self)
        else { throw SDPValueError("t= needs two decimal times: start stop (RFC 8866 §5.9)") }
        self.start = start
        self.stop = stop
    }

    public var sdpValue: String { "\(start) \(stop)" }
}
