import Crypto
import StageWire

/// MD5 from swift-crypto, the function callers pass for the long-term key (RFC 8489 §9.2.2).
func md5(_ data: UnsafeRawBufferPointer) -> [UInt8] { Array(Insecure.MD5.hash(data: data)) }

/// Runs `body` and returns the FramingError it throws, or nil.
func framingError<T>(_ body: () throws(FramingError) -> T) -> FramingError? { thrownError(FramingError.self, body) }
