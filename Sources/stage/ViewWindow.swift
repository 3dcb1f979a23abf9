import ArgumentParser
import CSDL2
import Foundation
import StageCanvas
import StageLayout
import StageKit
import Synchronization

/// `--view`: a window (SDL2) showing every subscribed video in a grid, IVS's grid layout as the
/// compositor draws it, each with its user id in a label under the picture. Decoded frames
/// arrive on the SDK's threads and are kept (the newest per participant); one thread composes
/// the canvas and shows it 30 times a second.
@MainActor
final class ViewWindow: StageRenderer {
    struct Shown: Sendable {
        var participant: LayoutParticipant
        var frame: VideoFrame?
    }

    /// Shared with the window's thread and the SDK's frame callbacks.
    final class State: Sendable {
        let shown = Mutex<[String: Shown]>([:])
        let stopped = Atomic<Bool>(false)
    }

    private let state = State()
    private var videos: [ObjectIdentifier: String] = [:]
    nonisolated let size: LayoutSize

    /// Opens the window now, so that a missing display is an error before joining.
    init(width: Int, height: Int) throws {
        size = LayoutSize(width: width, height: height)
        let opened = Mutex<String?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let thread = Thread { [state, size] in
            // SDL's video calls all happen on this thread.
            guard let window = SDLWindow(size: size, failure: { reason in opened.withLock { $0 = reason } }) else {
                ready.signal()
                return
            }
            ready.signal()
            window.run(state: state)
        }
        thread.name = "view"
        thread.start()
        ready.wait()
        if let failure = opened.withLock({ $0 }) { throw ValidationError("--view: \(failure)") }
    }

    func close() { state.stopped.store(true, ordering: .relaxed) }

    func stage(_ stage: Stage, participant: ParticipantInfo, didAdd streams: [StageStream]) {
        guard !participant.isLocal else { return }
        let id = participant.participantId
        let person = LayoutParticipant(participantId: id, userId: participant.userId, attributes: participant.attributes)
        for stream in streams where stream.kind == .video {
            videos[ObjectIdentifier(stream)] = id
            state.shown.withLock { $0[id] = Shown(participant: person, frame: nil) }
            (stream.device as? ImageDevice)?.setOnFrameCallback { [state] frame in
                state.shown.withLock { $0[id]?.frame = frame }
            }
        }
    }

    func stage(_ stage: Stage, participant: ParticipantInfo, didRemove streams: [StageStream]) {
        for stream in streams where stream.kind == .video {
            (stream.device as? ImageDevice)?.setOnFrameCallback(nil)
            if let id = videos.removeValue(forKey: ObjectIdentifier(stream)) { state.shown.withLock { _ = $0.removeValue(forKey: id) } }
        }
    }
}

/// The SDL window, renderer and texture; used only on the thread that made them.
private final class SDLWindow {
    let size: LayoutSize
    let window: OpaquePointer
    let renderer: OpaquePointer
    let texture: OpaquePointer
    var canvas: Canvas

    init?(size: LayoutSize, failure: (String) -> Void) {
        self.size = size
        guard SDL_Init(SDL_INIT_VIDEO) == 0 else {
            failure("cannot open a window: \(String(cString: SDL_GetError()))")
            return nil
        }
        guard let window = SDL_CreateWindow("stage", Int32(SDL_WINDOWPOS_UNDEFINED_MASK), Int32(SDL_WINDOWPOS_UNDEFINED_MASK),
                                            Int32(size.width), Int32(size.height), SDL_WINDOW_SHOWN.rawValue),
              let renderer = SDL_CreateRenderer(window, -1, 0) ?? SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE.rawValue),
              let texture = SDL_CreateTexture(renderer, SDL_PIXELFORMAT_IYUV.rawValue, Int32(SDL_TEXTUREACCESS_STREAMING.rawValue),
                                              Int32(size.width), Int32(size.height)) else {
            failure("cannot open a window: \(String(cString: SDL_GetError()))")
            SDL_Quit()
            return nil
        }
        self.window = window
        self.renderer = renderer
        self.texture = texture
        canvas = Canvas(width: size.width, height: size.height)
    }

    /// Shows the grid until `stopped` or the window is closed.
    func run(state: ViewWindow.State) {
        let layout = CompositionLayout(canvas: size, configuration: .grid(GridLayoutConfiguration()))
        var event = SDL_Event()
        while !state.stopped.load(ordering: .relaxed) {
            while SDL_PollEvent(&event) != 0 {
                if event.type == SDL_QUIT.rawValue { state.stopped.store(true, ordering: .relaxed) }
            }
            let current = state.shown.withLock { Array($0.values) }.sorted { $0.participant.participantId < $1.participant.participantId }
            canvas.clear()
            let frames = Dictionary(uniqueKeysWithValues: current.map { ($0.participant.participantId, $0.frame) })
            for tile in layout.tiles(for: current.map(\.participant)).sorted(by: { $0.zOrder < $1.zOrder }) {
                canvas.draw(tile, frame: frames[tile.participantId] ?? nil, label: true)
            }
            canvas.withPlanes { picture in
                _ = SDL_UpdateYUVTexture(texture, nil, picture.y, Int32(picture.yStride), picture.u, Int32(picture.uStride),
                                         picture.v, Int32(picture.vStride))
            }
            SDL_RenderClear(renderer)
            SDL_RenderCopy(renderer, texture, nil, nil)
            SDL_RenderPresent(renderer)
            SDL_Delay(33)
        }
        SDL_DestroyTexture(texture)
        SDL_DestroyRenderer(renderer)
        SDL_DestroyWindow(window)
        SDL_Quit()
    }
}
