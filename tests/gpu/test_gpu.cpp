// core/gpu: local device query, reference profiles, profile -> search parameters.

#include "core/gpu/device_facts.h"
#include "core/gpu/search_parameters.h"
#include "core/util/json.h"
#include "tests/support/test_data.h"

#include <QtTest>

#include <cmath>

#include <cstdlib>

using namespace beamscope::gpu;

class TestGpu : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        // Hide every GPU from the CUDA runtime (it reads this before its first
        // call), so the no-device path is what runs even on a machine with one.
        ::setenv("CUDA_VISIBLE_DEVICES", "", 1);
    }

    void noDeviceIsAClearResult()
    {
        const LocalDeviceQuery q = queryLocalDevice();
        QVERIFY(!q.device);
        QCOMPARE(q.deviceCount, 0);
        QVERIFY2(q.status.rfind("no CUDA device", 0) == 0, q.status.c_str());
#ifdef BEAMSCOPE_HAVE_CUDA
        QVERIFY(q.supportBuilt);
#else
        QVERIFY(!q.supportBuilt);
        QVERIFY(q.status.find("support built") != std::string::npos);
#endif
        // Asking again is just as safe (the runtime's sticky error is cleared).
        QCOMPARE(queryLocalDevice().status, q.status);
    }

    void v100ProfileMatchesPublishedFigures()
    {
        const auto v100 = findProfile("v100");
        QVERIFY(v100);
        QCOMPARE(v100->smCount, 80);
        QCOMPARE(v100->computeCapability(), 70);
        QCOMPARE(v100->sharedMemoryPerSmBytes, 96 * 1024);
        QCOMPARE(v100->l2CacheBytes, 6 * 1024 * 1024);
        // 877 MHz HBM2, two transfers per clock, 4096 bits: 898 GB/s (NVIDIA quotes 900).
        QVERIFY(std::abs(v100->memoryBandwidthGBps() - 898.0) < 1.0);
        QVERIFY(findProfile("Tesla V100-SXM2-16GB"));
        QVERIFY(!findProfile("V200"));
    }

    void profilesAreOrderedAndDistinct()
    {
        const auto names = profileNames();
        QCOMPARE(names.size(), size_t(4));
        QCOMPARE(referenceProfiles().size(), names.size());
        const auto a100 = findProfile("A100"), h100 = findProfile("H100"), h200 = findProfile("H200");
        QVERIFY(a100 && h100 && h200);
        QCOMPARE(a100->smCount, 108);
        QCOMPARE(h100->smCount, 132);
        // Published peak bandwidths: A100 40GB 1555 GB/s, H100 SXM 3.35 TB/s, H200 4.8 TB/s (within 1%).
        QVERIFY(std::abs(a100->memoryBandwidthGBps() / 1555.0 - 1) < 0.01);
        QVERIFY(std::abs(h100->memoryBandwidthGBps() / 3352.0 - 1) < 0.01);
        QVERIFY(std::abs(h200->memoryBandwidthGBps() / 4800.0 - 1) < 0.01);
        QCOMPARE(findProfile("h200")->name, h200->name);
    }

    void v100GivesHalidesDefaultSearchParameters()
    {
        // Anderson2021Params' defaults were chosen for a V100 (HALIDE-FACTS.md),
        // except parallelism, which the docs tell users to set to the SM count.
        const DeviceSearchParameters p = searchParametersFor(*findProfile("V100"));
        QCOMPARE(p.parallelism, 80);
        QCOMPARE(p.sharedMemoryLimitKb, 48);
        QCOMPARE(p.sharedMemorySmLimitKb, 96);
        QCOMPARE(p.activeBlockLimit, 32);
        QCOMPARE(p.activeWarpLimit, 64);
        const auto json = p.toJson();
        QCOMPARE(json.find("shared_memory_sm_limit_kb")->toInt(), 96);
    }

    void searchParametersFollowTheDevice()
    {
        DeviceFacts d = *findProfile("H100");
        DeviceSearchParameters p = searchParametersFor(d);
        QCOMPARE(p.parallelism, 132);
        QCOMPARE(p.sharedMemorySmLimitKb, 228);
        // A device with 64-wide warps and 1536 threads per SM holds 24 warps.
        d.warpSize = 64;
        d.maxThreadsPerSm = 1536;
        d.maxBlocksPerSm = 16;
        d.sharedMemoryPerBlockBytes = 64 * 1024;
        p = searchParametersFor(d);
        QCOMPARE(p.activeWarpLimit, 24);
        QCOMPARE(p.activeBlockLimit, 16);
        QCOMPARE(p.sharedMemoryLimitKb, 64);
    }

    void deviceCommandShowsBothSides()
    {
        // The child inherits CUDA_VISIBLE_DEVICES="" from initTestCase.
        auto r = beamscope::test::runProcess(beamscope::test::cliPath(), {"device", "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto parsed = beamscope::parseJson(r.out);
        QVERIFY2(parsed.value, parsed.error.c_str());
        const auto *local = parsed.value->find("local");
        QVERIFY(local && local->find("device")->isNull());
        QVERIFY(local->find("status")->toString().rfind("no CUDA device", 0) == 0);
        QCOMPARE(parsed.value->find("reference")->find("search_parameters")->find("parallelism")->toInt(), 80);

        r = beamscope::test::runProcess(beamscope::test::cliPath(), {"device", "--profile", "h100"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.find("no CUDA device") != std::string::npos);
        QVERIFY(r.out.find("NVIDIA H100 80GB HBM3") != std::string::npos);
        QCOMPARE(beamscope::test::runProcess(beamscope::test::cliPath(), {"device", "--profile", "V200"}).exitCode, 1);
        QCOMPARE(beamscope::test::runProcess(beamscope::test::cliPath(), {"device", "--bogus"}).exitCode, 2);
    }

    void factsSerialise()
    {
        const auto json = findProfile("A100")->toJson();
        QCOMPARE(json.find("sm_count")->toInt(), 108);
        QCOMPARE(json.find("compute_capability")->toString(), std::string("8.0"));
        QVERIFY(json.find("memory_bandwidth_gbps")->toNumber() > 1500);
    }
};

QTEST_GUILESS_MAIN(TestGpu)
#include "test_gpu.moc"
