import Testing
@testable import StageSFU

/// Simulcast layer switching happens only on a keyframe of the target layer.
struct LayerSelectorTests {
    let allFlowing = [true, true, true]

    @Test("with no preference the highest flowing layer is chosen, at its first keyframe")
    func startsOnHighestKeyframe() {
        var selector = LayerSelector()
        #expect(selector.accept(layer: 2, flowing: allFlowing) { false } == .drop(needsKeyframeOn: 2))
        #expect(selector.accept(layer: 0, flowing: allFlowing) { true } == .drop(needsKeyframeOn: 2))
        #expect(selector.accept(layer: 2, flowing: allFlowing) { true } == .forward(switched: true))
        #expect(selector.accept(layer: 2, flowing: allFlowing) { false } == .forward(switched: false))
        #expect(selector.current == 2)
    }

    @Test("a new preference keeps forwarding the current layer until the target's keyframe")
    func switchWaitsForKeyframe() {
        var selector = LayerSelector()
        _ = selector.accept(layer: 2, flowing: allFlowing) { true }
        selector.preferred = 0
        #expect(selector.accept(layer: 2, flowing: allFlowing) { false } == .forward(switched: false))
        #expect(selector.accept(layer: 0, flowing: allFlowing) { false } == .drop(needsKeyframeOn: 0))
        #expect(selector.accept(layer: 2, flowing: allFlowing) { false } == .forward(switched: false))
        #expect(selector.accept(layer: 0, flowing: allFlowing) { true } == .forward(switched: true))
        #expect(selector.accept(layer: 2, flowing: allFlowing) { false } == .drop(needsKeyframeOn: nil))
    }

    @Test("when the preferred layer stops, the closest flowing layer below is used")
    func fallsBackWhenALayerStops() {
        var selector = LayerSelector(preferred: 2)
        _ = selector.accept(layer: 2, flowing: allFlowing) { true }
        #expect(selector.wanted(flowing: [true, true, false]) == 1)
        #expect(selector.accept(layer: 1, flowing: [true, true, false]) { true } == .forward(switched: true))
        #expect(selector.wanted(flowing: [false, false, true]) == 2)
        #expect(selector.wanted(flowing: [false, false, false]) == nil)
        #expect(LayerSelector(preferred: 0).wanted(flowing: [false, true, true]) == 1)
    }

    @Test("on a link that overflows the current layer stops at once; the lower layer's keyframe is the next thing forwarded")
    func yieldsTheCurrentLayer() {
        var selector = LayerSelector()
        _ = selector.accept(layer: 2, flowing: allFlowing) { true }
        var yielded = selector.yieldCurrent(flowing: allFlowing)
        #expect(!yielded, "nothing wanted below the current layer: nothing to yield")
        selector.ceiling = 0
        yielded = selector.yieldCurrent(flowing: allFlowing)
        #expect(yielded)
        #expect(selector.current == nil && selector.target == 0)
        #expect(selector.accept(layer: 2, flowing: allFlowing) { true } == .drop(needsKeyframeOn: 0), "not even its keyframes")
        #expect(selector.accept(layer: 0, flowing: allFlowing) { false } == .drop(needsKeyframeOn: 0))
        #expect(selector.accept(layer: 0, flowing: allFlowing) { true } == .forward(switched: true))
        yielded = selector.yieldCurrent(flowing: allFlowing)
        #expect(!yielded, "already on the wanted layer")
    }
}
