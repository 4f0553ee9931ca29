// core/bench and beamscope-bench-worker: ahead-of-time compilation for host,
// OpenCL (run on PoCL here) and CUDA (PTX only, no GPU needed), measurement in
// a separate process, and failure records for crashes, hangs and wrong output.

#include "core/bench/benchmark.h"
#include "core/util/child_process.h"
#include "core/bench/targets.h"
#include "core/bench/uniform_barriers.h"
#include "core/util/json.h"
#include "tests/support/test_data.h"

#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <fstream>
#include <sstream>

using namespace beamscope;
using namespace beamscope::bench;

namespace {

constexpr int kWidth = 256, kHeight = 128;
constexpr double kScale = 0.25; // 64 x 32 outputs: enough for 16 x 8 GPU tiles, quick on PoCL

// A separable 3x3 box blur with no boundary condition, so the input region it
// needs (2 wider and taller than the output) comes from the bounds query.
pipelines::PipelineInstance boxBlur(float weight = 1.0f / 3.0f)
{
    Halide::ImageParam input(Halide::Float(32), 2, "input");
    Halide::Var x("x"), y("y"), xi("xi"), yi("yi");
    Halide::Func blurX("blur_x"), blurY("blur_y");
    blurX(x, y) = (input(x - 1, y) + input(x, y) + input(x + 1, y)) * weight;
    blurY(x, y) = (blurX(x, y - 1) + blurX(x, y) + blurX(x, y + 1)) * weight;
    blurY.set_estimates({{0, kWidth}, {0, kHeight}});
    pipelines::PipelineInstance p;
    p.name = "box_blur";
    p.outputs = {blurY};
    p.arguments = {input};
    p.applyGpuSchedule = [blurY](const Halide::Target &) mutable {
        Halide::Var xo, yo, xin, yin;
        blurY.gpu_tile(blurY.args()[0], blurY.args()[1], xo, yo, xin, yin, 16, 8);
    };
    return p;
}

// An output fed by an extern stage from tests/fixtures/bench/extern_stages.c.
pipelines::PipelineInstance externPipeline(const std::string &stage)
{
    Halide::Func ext(stage + "_stage"), out(stage);
    ext.define_extern(stage, {}, Halide::Float(32), 2);
    Halide::Var x("x"), y("y");
    out(x, y) = ext(x, y) + 1.0f;
    out.set_estimates({{0, 32}, {0, 32}});
    pipelines::PipelineInstance p;
    p.name = stage + "_pipeline"; // not the extern's own symbol name
    p.outputs = {out};
    return p;
}

std::filesystem::path externSource() { return test::sourceDir() / "tests" / "fixtures" / "bench" / "extern_stages.c"; }

std::string readBytes(const std::filesystem::path &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// How many GPU thread barriers sit inside an if, and how many outside any.
struct BarrierPlaces {
    int insideIf = 0, outside = 0;
};

BarrierPlaces barrierPlaces(const Halide::Internal::Stmt &s)
{
    using namespace Halide::Internal;
    class Finder : public IRVisitor {
    public:
        BarrierPlaces places;

    private:
        using IRVisitor::visit;
        int depth = 0;
        void visit(const IfThenElse *op) override
        {
            depth++;
            IRVisitor::visit(op);
            depth--;
        }
        void visit(const Call *op) override
        {
            if (op->is_intrinsic(Call::gpu_thread_barrier))
                (depth > 0 ? places.insideIf : places.outside)++;
            IRVisitor::visit(op);
        }
    } finder;
    s.accept(&finder);
    return finder.places;
}

} // namespace

class TestBench : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_cache;
    CompileOptions compileOptions() const
    {
        CompileOptions o;
        o.cacheDir = m_cache.path().toStdString();
        return o;
    }
    static RunOptions runOptions()
    {
        RunOptions r;
        r.reps = 3;
        r.scale = kScale;
        r.timeoutSeconds = 60;
        return r;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_cache.isValid());
        m_cache.setAutoRemove(qEnvironmentVariableIsEmpty("BEAMSCOPE_KEEP_TEST_CACHE"));
    }

    // Halide's per-block stage guarded by block-uniform ifs, with its barrier
    // inside them: the barrier comes out, each part keeps the guard and the
    // lets it uses; a thread-dependent guard or a memory read keeps it in.
    void barriersLeaveUniformIfsOnly()
    {
        using namespace Halide::Internal;
        using Halide::Expr;
        const std::string threadVar = "f.s0.x.__thread_id_x";
        const Expr tid = Variable::make(Halide::Int(32), threadVar);
        const Expr block = Variable::make(Halide::Int(32), "f.s0.y.__block_id_y");
        const Expr width = Variable::make(Halide::Int(32), "width");
        auto store = [](const std::string &buffer, Expr value, Expr index) {
            return Store::make(buffer, std::move(value), std::move(index), Halide::Internal::Parameter(),
                               Halide::Internal::const_true(), Halide::Internal::ModulusRemainder());
        };
        const Stmt barrier =
            Evaluate::make(Call::make(Halide::Int(32), Call::gpu_thread_barrier, {Expr(2)}, Call::Intrinsic));
        const Expr rest = Variable::make(Halide::Int(32), "rest");
        const Stmt init = IfThenElse::make(tid < 32, store("tile", 0.0f, tid));
        const Stmt update = IfThenElse::make(tid < 32 && tid < rest, store("tile", 1.0f, tid));
        auto kernel = [&](const Expr &outer, const Expr &inner) {
            const Stmt guarded = IfThenElse::make(outer, IfThenElse::make(inner, Block::make({init, barrier, update})));
            const Stmt body = LetStmt::make("rest", width - block * 64, Block::make(guarded, barrier));
            return For::make(threadVar, 0, 256, ForType::GPUThread, Halide::DeviceAPI::OpenCL, body);
        };

        const Stmt uniform = kernel(0 < width - block * 64, 0 < Variable::make(Halide::Int(32), "rest"));
        QCOMPARE(barrierPlaces(uniform).insideIf, 1);
        int lifted = 0;
        const Stmt rewritten = liftBarriersFromUniformIfs(uniform, &lifted);
        QCOMPARE(lifted, 2); // the inner if, then the outer one
        QCOMPARE(barrierPlaces(rewritten).insideIf, 0);
        QCOMPARE(barrierPlaces(rewritten).outside, 2);

        // A guard on the thread index, or one that reads memory, is not the same for every thread.
        for (const Expr &guard :
             {Expr(tid < 128),
              Load::make(Halide::Int(32), "sizes", 0, Halide::Buffer<>(), Halide::Internal::Parameter(),
                         Halide::Internal::const_true(), Halide::Internal::ModulusRemainder()) > 0}) {
            const Stmt divergent = kernel(guard, Halide::Internal::const_true());
            int none = -1;
            const Stmt kept = liftBarriersFromUniformIfs(divergent, &none);
            QCOMPARE(barrierPlaces(kept).insideIf, 1);
            QCOMPARE(none, 1); // only the always-true inner if
        }
    }

    void cudaCapabilityIsCappedAndDefaulted()
    {
        QCOMPARE(halideCudaCapability(90), 80);
        QCOMPARE(halideCudaCapability(86), 80);
        QCOMPARE(halideCudaCapability(72), 70);
        QCOMPARE(halideCudaCapability(60), 50);
        gpu::LocalDeviceQuery none;
        const Halide::Target t = benchTarget(TargetKind::Cuda, none);
        QVERIFY(t.has_feature(Halide::Target::CUDA));
        QVERIFY(t.has_feature(Halide::Target::CUDACapability70));
        gpu::LocalDeviceQuery h200;
        h200.device = gpu::DeviceFacts{};
        h200.device->computeMajor = 9;
        QVERIFY(benchTarget(TargetKind::Cuda, h200).has_feature(Halide::Target::CUDACapability80));
        QVERIFY(benchTarget(TargetKind::OpenCL, none).has_feature(Halide::Target::OpenCL));
        QVERIFY(!benchTarget(TargetKind::Host, none).has_gpu_feature());
        QVERIFY(!parseTargetKind("metal"));
    }

    void hostAndOpenClMatchTheReference()
    {
        // Both compile in parallel (two candidates, two references), then run one at a time.
        const std::vector<BenchRequest> requests = {
            {[] { return boxBlur(); }, Schedule::unscheduled(), benchTarget(TargetKind::Host, 0), true, {}, {}, {}},
            {[] { return boxBlur(); }, Schedule::gpu(), benchTarget(TargetKind::OpenCL, 0), true, {}, {}, {}},
        };
        CompileOptions co = compileOptions();
        co.jobs = 2;
        const auto results = benchmarkAll(requests, co, runOptions());
        QCOMPARE(results.size(), size_t(2));
        for (const auto &m : results) {
            QVERIFY2(m.ok, (m.target + ": " + m.message + "\n" + m.workerLog).c_str());
            QVERIFY(m.checked && m.matches);
            QCOMPARE(m.timesMs.size(), size_t(3));
            QVERIFY(m.minMs > 0 && m.minMs <= m.medianMs);
            QCOMPARE(m.values, 64.0 * 32.0);
            const auto &extents = m.outputs.items().at(0).find("extents")->items();
            QCOMPARE(extents.at(0).toInt(), 64);
            QCOMPARE(extents.at(1).toInt(), 32);
        }
        QVERIFY(results[1].target.find("opencl") != std::string::npos);
        QCOMPARE(results[1].schedule, std::string("gpu"));
    }

    void pipelineErrorIsARecord()
    {
        // 16 x 8 GPU tiles cannot cover a 3 x 1 output: Halide's runtime check
        // fails and the pipeline returns an error (the worker's error handler
        // keeps the runtime from aborting), reported with Halide's message.
        RunOptions ro = runOptions();
        ro.scale = 0.01;
        const Measurement m =
            benchmark({[] { return boxBlur(); }, Schedule::gpu(), benchTarget(TargetKind::OpenCL, 0), true, {}, {}, {}},
                      compileOptions(), ro);
        QVERIFY(!m.ok);
        QVERIFY2(m.failure == Failure::PipelineError, m.message.c_str());
        QVERIFY2(m.message.find("Halide error") != std::string::npos, m.message.c_str());
        QVERIFY2(m.message.find("it said:") != std::string::npos, m.message.c_str());
        qInfo("%s", m.message.c_str());
    }

    void cudaCompilesToPtxWithoutAGpu()
    {
        const CompiledLibrary lib = compilePipeline(
            {[] { return boxBlur(); }, Schedule::gpu(), benchTarget(TargetKind::Cuda, 70), {}, {}}, compileOptions());
        QVERIFY2(lib.ok, lib.error.c_str());
        QVERIFY(lib.target.find("cuda_capability_70") != std::string::npos);
        // The PTX module is embedded as text in the host object.
        const std::string bytes = readBytes(lib.library);
        QVERIFY(bytes.find(".target sm_70") != std::string::npos);
        QVERIFY(bytes.find(".entry") != std::string::npos);
        QVERIFY(bytes.find("blur_y") != std::string::npos);
    }

    void compiledLibrariesAreCached()
    {
        const CompileRequest request{
            [] { return boxBlur(); }, Schedule::unscheduled(), benchTarget(TargetKind::Host, 0), {}, {}};
        // A cache of its own: other tests compile these same pipelines.
        QTemporaryDir cache;
        CompileOptions options;
        options.cacheDir = cache.path().toStdString();
        const CompiledLibrary first = compilePipeline(request, options);
        const CompiledLibrary second = compilePipeline(request, options);
        QVERIFY2(first.ok && second.ok, (first.error + second.error).c_str());
        QVERIFY2(second.cacheHit, (first.key + " vs " + second.key).c_str());
        QCOMPARE(second.library, first.library);
        // A different schedule or algorithm is a different library.
        const CompiledLibrary rooted =
            compilePipeline({request.build, Schedule::computeRoot(), request.target, {}, {}}, options);
        const CompiledLibrary other =
            compilePipeline({[] { return boxBlur(0.25f); }, Schedule::unscheduled(), request.target, {}, {}}, options);
        QVERIFY(rooted.ok && other.ok);
        QVERIFY(!rooted.cacheHit && !other.cacheHit);
        QVERIFY(rooted.key != first.key && other.key != first.key && rooted.key != other.key);
    }

    void wrongOutputIsDetected()
    {
        BenchRequest r{[] { return boxBlur(); },
                       Schedule::unscheduled(),
                       benchTarget(TargetKind::Host, 0),
                       true,
                       [] { return boxBlur(0.34f); },
                       {},
                       {}};
        const Measurement m = benchmark(r, compileOptions(), runOptions());
        QVERIFY(!m.ok);
        QVERIFY2(m.failure == Failure::WrongOutput, m.message.c_str());
        QVERIFY(m.checked && !m.matches);
        QCOMPARE(m.mismatches, m.values);
        QVERIFY(m.message.find("first at output 'blur_y") != std::string::npos);
        QVERIFY2(m.message.find("at (0, 0): got") != std::string::npos, m.message.c_str());
        QVERIFY(!m.timesMs.empty()); // it was still timed
    }

    void crashingPipelineGivesAFailedRecord()
    {
        BenchRequest r{[] { return externPipeline("beamscope_test_crash"); },
                       Schedule::unscheduled(),
                       benchTarget(TargetKind::Host, 0),
                       false,
                       {},
                       {externSource()},
                       {}};
        const Measurement m = benchmark(r, compileOptions(), runOptions());
        QVERIFY(!m.ok);
        QVERIFY2(m.failure == Failure::Crash, m.message.c_str());
        QVERIFY2(m.message.find("SIGABRT") != std::string::npos, m.message.c_str());
        QVERIFY2(m.message.find("during warmup") != std::string::npos, m.message.c_str());
    }

    void hangingPipelineTimesOut()
    {
        BenchRequest r{[] { return externPipeline("beamscope_test_hang"); },
                       Schedule::unscheduled(),
                       benchTarget(TargetKind::Host, 0),
                       false,
                       {},
                       {externSource()},
                       {}};
        RunOptions ro = runOptions();
        ro.timeoutSeconds = 2;
        const auto start = std::chrono::steady_clock::now();
        const Measurement m = benchmark(r, compileOptions(), ro);
        const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        QVERIFY(!m.ok);
        QVERIFY2(m.failure == Failure::Timeout, m.message.c_str());
        QVERIFY2(m.message.find("timeout") != std::string::npos, m.message.c_str());
        QVERIFY(took < 60); // killed, not waited for
    }

    void compileErrorsAreRecords()
    {
        // No GPU schedule to apply.
        pipelines::PipelineInstance (*noGpu)() = [] {
            auto p = boxBlur();
            p.applyGpuSchedule = nullptr;
            return p;
        };
        Measurement m = benchmark({noGpu, Schedule::gpu(), benchTarget(TargetKind::OpenCL, 0), true, {}, {}, {}},
                                  compileOptions(), runOptions());
        QCOMPARE(m.failure, Failure::Compile);
        QVERIFY2(m.message.find("has no GPU schedule") != std::string::npos, m.message.c_str());
        // A schedule Halide rejects: GPU loops on a target without a GPU.
        m = benchmark({[] { return boxBlur(); }, Schedule::gpu(), benchTarget(TargetKind::Host, 0), true, {}, {}, {}},
                      compileOptions(), runOptions());
        QCOMPARE(m.failure, Failure::Compile);
        QVERIFY(!m.message.empty());
    }

    void missingWorkerIsARecord()
    {
        RunOptions ro = runOptions();
        ro.worker = "/nonexistent/beamscope-bench-worker";
        const Measurement m = benchmark(
            {[] { return boxBlur(); }, Schedule::unscheduled(), benchTarget(TargetKind::Host, 0), true, {}, {}, {}},
            compileOptions(), ro);
        QCOMPARE(m.failure, Failure::WorkerMissing);
        QVERIFY(m.message.find("/nonexistent/beamscope-bench-worker") != std::string::npos);
    }

    void benchCommand()
    {
        const auto cli = test::cliPath();
        QCOMPARE(test::runProcess(cli, {"bench", "--app", "box_blur", "--target", "metal"}).exitCode, 2);
        QCOMPARE(test::runProcess(cli, {"bench", "--target", "host"}).exitCode, 2);
        QCOMPARE(test::runProcess(cli, {"bench", "--app", "no_such_app", "--target", "host"}).exitCode, 1);
        if (!pipelines::findPipeline("box_blur"))
            QSKIP("the registry has no box_blur yet");
        const auto r = test::runProcess(cli, {"bench", "--app", "box_blur", "--target", "host", "--reps", "2",
                                              "--scale", "0.05", "--json", "--cache", m_cache.path().toStdString()});
        QVERIFY2(r.exitCode == 0, (r.out + r.err).c_str());
        const auto parsed = parseJson(r.out);
        QVERIFY2(parsed.value, parsed.error.c_str());
        QVERIFY(parsed.value->find("ok")->toBool());
        QCOMPARE(parsed.value->find("times_ms")->size(), size_t(2));
        QVERIFY(parsed.value->find("correctness")->find("matches")->toBool());
        QVERIFY(parsed.value->find("median_ms")->toNumber() >= parsed.value->find("min_ms")->toNumber());
    }

    void childProcessReportsSignalsAndExitCodes()
    {
        ChildResult r = runChild({"sh", "-c", "echo out; echo err >&2; exit 7"}, 10);
        QVERIFY(r.started);
        QCOMPARE(r.exitCode, 7);
        QCOMPARE(r.out, std::string("out\n"));
        QCOMPARE(r.err, std::string("err\n"));
        r = runChild({"sh", "-c", "kill -SEGV $$"}, 10);
        QVERIFY(r.signaled);
        QCOMPARE(signalName(r.signal), std::string("SIGSEGV"));
    }
};

QTEST_GUILESS_MAIN(TestBench)
#include "test_bench.moc"
