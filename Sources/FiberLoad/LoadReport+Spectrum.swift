import Histogram

extension LoadReport {
    /// The latency distribution in HdrHistogram's percentile format, values in
    /// milliseconds: a `Value Percentile TotalCount 1/(1-Percentile)` row at
    /// each step (five per halving of the distance to 100%), then the
    /// `#[Mean …]`, `#[Max …]` and `#[Buckets …]` footer. It is the text of an
    /// `.hgrm` file, which HdrHistogram's plotter and wrk2 tools read.
    public var hgrm: String {
        var text = ""
        latencyHistogram.outputPercentileDistribution(to: &text, outputValueUnitScalingRatio: 1000)
        return text
    }

    /// `hgrm` under wrk2's `--latency` heading ("Detailed Percentile spectrum:").
    public var percentileSpectrum: String {
        "  Detailed Percentile spectrum:\n" + hgrm
    }
}
