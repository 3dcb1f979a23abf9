/// A borrowed I420 (YUV 4:2:0 planar, 8 bit) picture: plane pointers and strides, as a canvas
/// or a decoder holds them. The pointers must stay valid for the call they are passed to; the
/// encoders copy the pixels before returning.
public struct EncoderPicture {
    public let width: Int
    public let height: Int
    public let y: UnsafePointer<UInt8>
    public let yStride: Int
    public let u: UnsafePointer<UInt8>
    public let uStride: Int
    public let v: UnsafePointer<UInt8>
    public let vStride: Int

    public init(width: Int, height: Int,
                y: UnsafePointer<UInt8>, yStride: Int,
                u: UnsafePointer<UInt8>, uStride: Int,
                v: UnsafePointer<UInt8>, vStride: Int) {
        precondition(width > 0 && height > 0, "a picture has a size")
        precondition(yStride >= width && uStride >= (width + 1) / 2 && vStride >= (width + 1) / 2,
                     "strides cover a row")
        self.width = width
        self.height = height
        self.y = y
        self.yStride = yStride
        self.u = u
        self.uStride = uStride
        self.v = v
        self.vStride = vStride
    }
}

extension VideoFrame {
    /// Calls `body` with this frame's planes as an ``EncoderPicture`` (packed rows).
    public func withEncoderPicture<Result, Failure: Error>(
        _ body: (EncoderPicture) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let result: Swift.Result<Result, Failure> = y.withUnsafeBufferPointer { y in
            u.withUnsafeBufferPointer { u in
                v.withUnsafeBufferPointer { v in
                    let picture = EncoderPicture(
                        width: width, height: height,
                        y: y.baseAddress!, yStride: width,
                        u: u.baseAddress!, uStride: chromaWidth,
                        v: v.baseAddress!, vStride: chromaWidth)
                    do throws(Failure) { return .success(try body(picture)) } catch { return .failure(error) }
                }
            }
        }
        return try result.get()
    }
}
