import Foundation
import StageKit
import StageMedia
import Synchronization

/// `--record DIR`: writes every received stream as it arrives, VP8 into IVF (from its first
/// keyframe) and Opus into Ogg, one file per participant and stream, closed when the stream goes.
@MainActor
final class StreamRecorder: StageRenderer {
    let directory: String
    private var videos: [ObjectIdentifier: VideoFile] = [:]
    private var audios: [ObjectIdentifier: AudioFile] = [:]
    /// Files written, for the closing summary.
    private(set) var paths: [String] = []

    init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func stage(_ stage: Stage, participant: ParticipantInfo, didAdd streams: [StageStream]) {
        guard !participant.isLocal else { return }
        let name = participant.userId.isEmpty ? participant.participantId : participant.userId
        for stream in streams {
            let base = "\(directory)/\(sanitized(name))-\(sanitized(stream.streamId))"
            switch stream.kind {
            case .video:
                let file = VideoFile(path: base + ".ivf")
                videos[ObjectIdentifier(stream)] = file
                (stream.device as? ImageDevice)?.setOnEncodedFrameCallback { frame in file.write(frame) }
                paths.append(file.path)
            case .audio:
                guard let file = try? AudioFile(path: base + ".ogg") else { continue }
                audios[ObjectIdentifier(stream)] = file
                (stream.device as? AudioDevice)?.setOnEncodedAudioCallback { packet in file.write(packet) }
                paths.append(file.path)
            }
        }
    }

    func stage(_ stage: Stage, participant: ParticipantInfo, didRemove streams: [StageStream]) {
        for stream in streams { close(stream) }
    }

    func closeAll() {
        for file in videos.values { file.close() }
        for file in audios.values { file.close() }
        videos = [:]
        audios = [:]
    }

    private func close(_ stream: StageStream) {
        (stream.device as? ImageDevice)?.setOnEncodedFrameCallback(nil)
        (stream.device as? AudioDevice)?.setOnEncodedAudioCallback(nil)
        videos.removeValue(forKey: ObjectIdentifier(stream))?.close()
        audios.removeValue(forKey: ObjectIdentifier(stream))?.close()
    }

    private func sanitized(_ name: String) -> String {
        String(name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
    }
}

/// An IVF file opened at the first keyframe (which gives the size); timestamps from RTP (90 kHz).
final class VideoFile: Sendable {
    let path: String
    private let state = Mutex<(writer: IVFWriter?, first: UInt32, last: UInt64)>((nil, 0, 0))

    init(path: String) { self.path = path }

    func write(_ frame: EncodedVideoFrameData) {
        state.withLock { state in
            if state.writer == nil {
                guard frame.isKeyframe, let width = frame.width, let height = frame.height,
                      let writer = try? IVFWriter(path: path, width: width, height: height) else { return }
                state = (writer, frame.timestamp, 0)
            }
            // RTP time wraps every 13 h; frames are in order, so the offset only grows.
            let offset = UInt64(frame.timestamp &- state.first)
            try? state.writer?.write(frame: frame.data, timestamp: max(offset, state.last))
            state.last = max(offset, state.last)
        }
    }

    func close() { state.withLock { try? $0.writer?.close(); $0.writer = nil } }
}

/// An Ogg Opus file of 20 ms packets.
final class AudioFile: Sendable {
    let path: String
    private let writer: Mutex<OggOpusWriter?>

    init(path: String) throws {
        self.path = path
        writer = Mutex(try OggOpusWriter(path: path, channels: 2))
    }

    func write(_ packet: [UInt8]) { writer.withLock { try? $0?.write(packet: packet) } }
    func close() { writer.withLock { try? $0?.close(); $0 = nil } }
}
