import Foundation

/// Peak signal-to-noise ratio between two 8-bit I420 pictures: `10·log10(255² / MSE)` dB.
///
/// Identical planes give `+infinity`. Both pictures must have the same size (a precondition:
/// comparing different sizes is a programming error, scale first with `VideoScaler`).
public enum PSNR {
    /// PSNR of the luma plane only.
    public static func luma(_ a: VideoFrame, _ b: VideoFrame) -> Double {
        precondition(a.width == b.width && a.height == b.height, "PSNR needs frames of one size")
        return psnr(squaredError: squaredError(a.y, b.y), samples: a.y.count)
    }

    /// PSNR over all samples of all three planes: the summed squared error of Y, U and V over the
    /// total sample count, i.e. planes weighted by their sample counts (4:1:1 for 4:2:0). This is
    /// the "overall" PSNR libvpx's `vpx_calc_psnr` and ffmpeg's `psnr` filter (average) report.
    public static func yuv(_ a: VideoFrame, _ b: VideoFrame) -> Double {
        precondition(a.width == b.width && a.height == b.height, "PSNR needs frames of one size")
        let error = squaredError(a.y, b.y) + squaredError(a.u, b.u) + squaredError(a.v, b.v)
        return psnr(squaredError: error, samples: a.y.count + a.u.count + a.v.count)
    }

    /// `10·log10(255² · samples / squaredError)`, `+infinity` when the error is 0.
    static func psnr(squaredError: UInt64, samples: Int) -> Double {
        guard squaredError > 0 else { return .infinity }
        let mse = Double(squaredError) / Double(samples)
        return 10 * log10(255.0 * 255.0 / mse)
    }

    static func squaredError(_ a: [UInt8], _ b: [UInt8]) -> UInt64 {
        precondition(a.count == b.count, "planes of one size")
        return a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in
                var sum: UInt64 = 0
                for i in 0..<pa.count {
                    let d = Int(pa[i]) - Int(pb[i])
                    sum &+= UInt64(d * d)
                }
                return sum
            }
        }
    }
}
