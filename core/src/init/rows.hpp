#pragma once
// Internal to core/src/init: the rows a seeding reads (init.cpp's passes and
// k-means‖, kmeans_parallel.cpp).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "kms/communicator.hpp"
#include "kms/error.hpp"
#include "kms/matrix.hpp"
#include "kms/row_source.hpp"
#include "seeding.hpp"

namespace kms::seeding {

// The rows the seeding reads: all of them (one process), or a rank's block of a
// data set split over ranks (RowPartition): local row i is global row first + i.
// Every collective step below is skipped without a communicator, so one process
// runs exactly the single-process code; with one, each rank computes its blocks'
// share and the ranks combine them in global block order (the blocks of 4096 rows
// never straddle ranks: partition_rows), so the choices are the single process's.
// Out of core the rows are not in memory: they are read from a RowSource a window
// of whole 4096-row blocks at a time on every pass (for_each_window), and a chosen
// row from the file by its owner.
template <typename T>
class Rows {
public:
    explicit Rows(const Matrix<T>& all) : block_(&all), local_(all.rows()), cols_(all.cols()), global_(all.rows()) {}
    Rows(const Matrix<T>& block, const RowPartition& partition)
        : block_(&block), local_(block.rows()), cols_(block.cols()), first_(partition.first_row),
          global_(partition.global_rows), comm_(partition.comm.get()) {
        check_partition();
    }
    // Rows [first_row, first_row + rows) of `source` (every row without a
    // partition), read `window_rows` at a time (a multiple of the 4096-row block).
    Rows(const RowSource& source, std::size_t first_row, std::size_t rows, const RowPartition* partition,
         std::size_t window_rows)
        : source_(&source), local_(rows), cols_(source.cols()), first_(first_row),
          global_(partition ? partition->global_rows : rows), comm_(partition ? partition->comm.get() : nullptr),
          window_rows_(std::max<std::size_t>(1, window_rows / kBlockSize) * kBlockSize) {
        if (comm_) check_partition();
    }

    const Matrix<T>* block() const { return block_; }  // null out of core
    std::size_t cols() const { return cols_; }
    std::size_t first() const { return first_; }
    std::size_t global() const { return global_; }
    std::size_t local() const { return local_; }
    bool mine(std::size_t g) const { return g >= first_ && g < first_ + local_; }
    Communicator* comm() const { return comm_; }
    bool out_of_core() const { return source_ != nullptr; }

    // body(values, begin, count) for local rows [begin, begin + count), whole
    // 4096-row blocks but the last, in row order; values[0] is row begin's.
    template <typename Body>
    void for_each_window(Body&& body) const {
        if (block_) return body(block_->data(), std::size_t{0}, local_);
        // Ranks agree on a read's failure before the next collective (none waits for ever).
        agreed(comm_, [&] {
            std::vector<T> buffer(std::min(window_rows_, local_) * cols_);
            for (std::size_t begin = 0; begin < local_; begin += window_rows_) {
                const std::size_t count = std::min(window_rows_, local_ - begin);
                source_->read(first_ + begin, count, buffer.data());
                body(static_cast<const T*>(buffer.data()), begin, count);
            }
        });
    }

    // Global row g, widened to double, on every rank (its owner broadcasts it).
    std::vector<double> row(std::size_t g) const {
        std::vector<double> out(cols_, 0.0);
        if (block_) {
            if (mine(g)) std::copy(block_->row(g - first_), block_->row(g - first_) + cols_, out.begin());
        } else {
            agreed(comm_, [&] {  // the owner's read may fail: agreed before the broadcast
                if (!mine(g)) return;
                std::vector<T> read(cols_);
                source_->read(g, 1, read.data());
                std::copy(read.begin(), read.end(), out.begin());
            });
        }
        if (comm_) comm_->broadcast(out, owner(g));
        return out;
    }
    // This rank's local row i, widened to double (out of core: read from the file; not collective).
    std::vector<double> local_row(std::size_t i) const {
        std::vector<double> out(cols_, 0.0);
        if (block_) {
            std::copy(block_->row(i), block_->row(i) + cols_, out.begin());
        } else {
            std::vector<T> read(cols_);
            source_->read(first_ + i, 1, read.data());
            std::copy(read.begin(), read.end(), out.begin());
        }
        return out;
    }
    // A value the owner of global row g computed, on every rank.
    double from_owner(double value, std::size_t g) const {
        if (comm_) comm_->broadcast({&value, 1}, owner(g));
        return value;
    }
    // Every rank's values in rank (= row) order.
    std::vector<double> gather(const std::vector<double>& local) const {
        return comm_ ? comm_->allgather(std::span<const double>(local)) : local;
    }

private:
    void check_partition() {
        if (first_ % kBlockSize != 0)
            throw Error("a rank's block for the initialisation starts at row " + std::to_string(first_) +
                        ", not on a block of " + std::to_string(kBlockSize) + " rows: split the rows with "
                        "kms::partition_rows");
        const std::int64_t mine[] = {static_cast<std::int64_t>(first_), static_cast<std::int64_t>(local_)};
        const std::vector<std::int64_t> all = comm_->allgather(std::span<const std::int64_t>(mine));
        for (std::size_t r = 0; r + 1 < all.size(); r += 2)
            if (all[r + 1] > 0) {
                owners_.push_back({static_cast<std::size_t>(all[r]), static_cast<std::size_t>(all[r] + all[r + 1])});
                owner_ranks_.push_back(static_cast<int>(r / 2));
            }
        std::size_t expected = 0;
        for (const auto& [begin, end] : owners_) {
            if (begin != expected) throw Error("the ranks' blocks do not cover the data set's rows once each, in order");
            expected = end;
        }
        if (expected != global_) throw Error("the ranks' blocks do not cover the data set's " + std::to_string(global_) + " rows");
    }

    int owner(std::size_t g) const {
        for (std::size_t r = 0; r < owners_.size(); ++r)
            if (g >= owners_[r].first && g < owners_[r].second) return owner_ranks_[r];
        throw Error("row " + std::to_string(g) + " lies in no rank's block");
    }

    const Matrix<T>* block_ = nullptr;     // the rows in memory, or
    const RowSource* source_ = nullptr;   // out of core: where they are read
    std::size_t local_ = 0, cols_ = 0;
    std::size_t first_ = 0, global_ = 0;
    Communicator* comm_ = nullptr;
    std::size_t window_rows_ = 0;         // out of core: rows per read
    std::vector<std::pair<std::size_t, std::size_t>> owners_;  // the ranks with rows: their global rows [begin, end)
    std::vector<int> owner_ranks_;                             // and their rank numbers
};

}  // namespace kms::seeding
